import type { QueueMetrics } from '../../../contracts/index.js';
import { successRate } from '../timeRanges.js';
import type { ReadDb } from './ReadDb.js';
import { createReservedCount } from './reservedCount.js';

/**
 * Queue metrics (GET /queues) from the stat_tasks counters, with the age of the next Queued row in
 * claim order and, where the store keeps them, the runs finished in the last minute.
 */
export function createQueueMetrics(db: ReadDb) {
  const { model, sumWhere } = db.dialect;
  const count = (condition: string) => `COALESCE(${sumWhere('n', condition)}, 0)`;
  const perQueue = `
    SELECT queue AS "queueName", SUM(n) AS "totalTasks",
           ${count("status IN ('Queued', 'WaitingQueue')")} AS "queuedTasks",
           ${count("status = 'InProgress'")} AS "inProgressTasks",
           ${count("status = 'Completed'")} AS "completedTasks",
           ${count("status = 'Failed'")} AS "failedTasks",
           ${count("status = 'Cancelled'")} AS "cancelledTasks"
      FROM ${model('stat_tasks')} GROUP BY queue HAVING SUM(n) > 0 ORDER BY queue`;
  // The next Queued row in claim order (oldest created first, off the claim index) and
  // how long it has been due: O(log n) per queue.
  const nextQueued = `SELECT COALESCE(scheduled_at, created_at) AS due FROM tasks WHERE queue = ? AND status = 'Queued' ORDER BY created_at, ${db.dialect.insertionOrder} LIMIT 1`;
  // The last minute's rate: finished runs in the 10-second buckets that end after now − 60 s.
  const finished = db.features.queueThroughput
    ? `SELECT queue, SUM(n) AS n FROM ${model('stat_queue_finished_10s')} WHERE bucket >= ? GROUP BY queue`
    : undefined;
  const reservedCount = createReservedCount(db);
  return async function queueMetrics(nowMs: number = Date.now()): Promise<QueueMetrics[]> {
    const [rows, lastMinute] = await Promise.all([
      db.query<Omit<QueueMetrics, 'successRate'>>(perQueue),
      finished === undefined ? undefined : db.query<{ queue: string; n: number }>(finished, [Math.floor((nowMs - 60_000) / 10_000) + 1]),
    ]);
    const finishedBy = new Map(lastMinute?.map((r) => [r.queue, r.n]));
    return Promise.all(
      rows.map(async (r) => {
        const m: QueueMetrics = { ...r, successRate: successRate(r.completedTasks, r.failedTasks) };
        if (r.queuedTasks > 0) {
          const [next] = await db.query<{ due: number }>(nextQueued, [r.queueName]);
          if (next) m.oldestQueuedAgeMs = Math.max(0, nowMs - next.due);
        }
        if (db.features.reservations) m.reservedCount = r.queuedTasks > 0 ? ((await reservedCount(r.queueName)) ?? 0) : 0;
        if (lastMinute !== undefined) m.finishedLastMinute = finishedBy.get(r.queueName) ?? 0;
        return m;
      }),
    );
  };
}
