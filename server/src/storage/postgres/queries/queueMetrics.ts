import type { QueueMetrics } from '../../../contracts/index.js';
import { successRate } from '../../queries/timeRanges.js';
import type { PgQuery } from './PgQuery.js';

/**
 * Queue metrics from the counters, with the age of the next Queued row in claim order and the
 * runs finished in the last minute (10-second buckets ending after now − 60 s).
 */
export function pgQueueMetrics(q: PgQuery) {
  return async function queueMetrics(nowMs: number = Date.now()): Promise<QueueMetrics[]> {
    const [rows, finished] = await Promise.all([
      q<Omit<QueueMetrics, 'successRate'>>(`
        SELECT queue AS "queueName", SUM(n) AS "totalTasks",
               COALESCE(SUM(n) FILTER (WHERE status IN ('Queued', 'WaitingQueue')), 0) AS "queuedTasks",
               COALESCE(SUM(n) FILTER (WHERE status = 'InProgress'), 0) AS "inProgressTasks",
               COALESCE(SUM(n) FILTER (WHERE status = 'Completed'), 0) AS "completedTasks",
               COALESCE(SUM(n) FILTER (WHERE status = 'Failed'), 0) AS "failedTasks",
               COALESCE(SUM(n) FILTER (WHERE status = 'Cancelled'), 0) AS "cancelledTasks"
          FROM stat_tasks_v GROUP BY queue HAVING SUM(n) > 0 ORDER BY queue`),
      q<{ queue: string; n: number }>(`SELECT queue, SUM(n) AS n FROM stat_queue_finished_10s_delta WHERE bucket >= $1 GROUP BY queue`, [
        Math.floor((nowMs - 60_000) / 10_000) + 1,
      ]),
    ]);
    const lastMinute = new Map(finished.map((r) => [r.queue, r.n]));
    return Promise.all(
      rows.map(async (r) => {
        const m: QueueMetrics = { ...r, successRate: successRate(r.completedTasks, r.failedTasks) };
        if (r.queuedTasks > 0) {
          const [next] = await q<{ due: number }>(
            `SELECT COALESCE(scheduled_at, created_at) AS due FROM tasks WHERE queue = $1 AND status = 'Queued' ORDER BY created_at LIMIT 1`,
            [r.queueName],
          );
          if (next) m.oldestQueuedAgeMs = Math.max(0, nowMs - next.due);
        }
        m.finishedLastMinute = lastMinute.get(r.queueName) ?? 0;
        return m;
      }),
    );
  };
}
