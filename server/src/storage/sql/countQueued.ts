import type { Database } from 'better-sqlite3';

/** Number of Queued rows of a queue, read from the stat_tasks read model (O(groups)). */
export function prepareCountQueued(db: Database): (queue: string) => number {
  const stmt = db.prepare(`SELECT COALESCE(SUM(n), 0) AS n FROM stat_tasks WHERE queue = ? AND status = 'Queued'`).pluck();
  return (queue) => stmt.get(queue) as number;
}
