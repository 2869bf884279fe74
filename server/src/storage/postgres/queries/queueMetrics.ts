import type { QueueMetrics } from '../../../contracts/index.js';
import { successRate } from '../../queries/timeRanges.js';
import type { PgQuery } from './PgQuery.js';

/** Queue metrics from the counters. */
export function pgQueueMetrics(q: PgQuery) {
  return async function queueMetrics(): Promise<QueueMetrics[]> {
    const rows = await q<Omit<QueueMetrics, 'successRate'>>(`
      SELECT queue AS "queueName", SUM(n) AS "totalTasks",
             COALESCE(SUM(n) FILTER (WHERE status IN ('Queued', 'WaitingQueue')), 0) AS "queuedTasks",
             COALESCE(SUM(n) FILTER (WHERE status = 'InProgress'), 0) AS "inProgressTasks",
             COALESCE(SUM(n) FILTER (WHERE status = 'Completed'), 0) AS "completedTasks",
             COALESCE(SUM(n) FILTER (WHERE status = 'Failed'), 0) AS "failedTasks",
             COALESCE(SUM(n) FILTER (WHERE status = 'Cancelled'), 0) AS "cancelledTasks"
        FROM stat_tasks_v GROUP BY queue HAVING SUM(n) > 0 ORDER BY queue`);
    return rows.map((r) => ({ ...r, successRate: successRate(r.completedTasks, r.failedTasks) }));
  };
}
