import type { Database } from 'better-sqlite3';
import type { QueueMetrics } from '../../contracts/index.js';
import { successRate } from './timeRanges.js';

/** §2.10 queue metrics from the stat_tasks counters. */
export function createQueueMetrics(db: Database) {
  const st = db.prepare(`
    SELECT queue AS queueName, SUM(n) AS totalTasks,
           SUM(CASE WHEN status IN ('Queued', 'WaitingQueue') THEN n ELSE 0 END) AS queuedTasks,
           SUM(CASE WHEN status = 'InProgress' THEN n ELSE 0 END) AS inProgressTasks,
           SUM(CASE WHEN status = 'Completed' THEN n ELSE 0 END) AS completedTasks,
           SUM(CASE WHEN status = 'Failed' THEN n ELSE 0 END) AS failedTasks,
           SUM(CASE WHEN status = 'Cancelled' THEN n ELSE 0 END) AS cancelledTasks
      FROM stat_tasks GROUP BY queue HAVING SUM(n) > 0 ORDER BY queue`);
  return function queueMetrics(): QueueMetrics[] {
    return (st.all() as Omit<QueueMetrics, 'successRate'>[]).map((r) => ({
      ...r,
      successRate: successRate(r.completedTasks, r.failedTasks),
    }));
  };
}
