import type { Database } from 'better-sqlite3';
import type { QueueMetrics } from '../../contracts/index.js';
import type { SchemaFeatures } from './schemaFeatures.js';
import { successRate } from './timeRanges.js';

/** Queue metrics (GET /queues) from the stat_tasks counters. */
export function createQueueMetrics(db: Database, features?: Pick<SchemaFeatures, 'queueThroughput'>) {
  // The next Queued row in claim order (oldest created first; ix_tasks_queue_status_created) and
  // how long it has been due: O(log n) per queue.
  const nextQueued = db.prepare(
    `SELECT COALESCE(scheduled_at, created_at) AS due FROM tasks WHERE queue = ? AND status = 'Queued' ORDER BY created_at LIMIT 1`,
  ).pluck();
  const finished = features?.queueThroughput
    ? db.prepare(`SELECT queue, SUM(n) AS n FROM stat_queue_finished_10s WHERE bucket >= ? GROUP BY queue`)
    : undefined;
  const st = db.prepare(`
    SELECT queue AS queueName, SUM(n) AS totalTasks,
           SUM(CASE WHEN status IN ('Queued', 'WaitingQueue') THEN n ELSE 0 END) AS queuedTasks,
           SUM(CASE WHEN status = 'InProgress' THEN n ELSE 0 END) AS inProgressTasks,
           SUM(CASE WHEN status = 'Completed' THEN n ELSE 0 END) AS completedTasks,
           SUM(CASE WHEN status = 'Failed' THEN n ELSE 0 END) AS failedTasks,
           SUM(CASE WHEN status = 'Cancelled' THEN n ELSE 0 END) AS cancelledTasks
      FROM stat_tasks GROUP BY queue HAVING SUM(n) > 0 ORDER BY queue`);
  /** The last minute's rate: finished runs in the 10-second buckets that end after now − 60 s. */
  return function queueMetrics(nowMs: number = Date.now()): QueueMetrics[] {
    const lastMinute = new Map<string, number>();
    if (finished) {
      for (const r of finished.all(Math.floor((nowMs - 60_000) / 10_000) + 1) as { queue: string; n: number }[]) lastMinute.set(r.queue, r.n);
    }
    return (st.all() as Omit<QueueMetrics, 'successRate'>[]).map((r) => {
      const m: QueueMetrics = { ...r, successRate: successRate(r.completedTasks, r.failedTasks) };
      if (r.queuedTasks > 0) {
        const due = nextQueued.get(r.queueName) as number | undefined;
        if (due !== undefined) m.oldestQueuedAgeMs = Math.max(0, nowMs - due);
      }
      if (finished) m.finishedLastMinute = lastMinute.get(r.queueName) ?? 0;
      return m;
    });
  };
}
