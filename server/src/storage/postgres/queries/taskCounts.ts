import type { TaskCounts } from '../../../contracts/index.js';
import type { PgQuery } from './PgQuery.js';

/** Task counts from the counters: O(groups). */
export function pgTaskCounts(q: PgQuery) {
  return async function taskCounts(): Promise<TaskCounts> {
    const [row] = await q<TaskCounts>(`
      SELECT COALESCE(SUM(n), 0) AS "all",
             COALESCE(SUM(n) FILTER (WHERE is_recurring = 0), 0) AS standard,
             COALESCE(SUM(n) FILTER (WHERE is_recurring = 1), 0) AS recurring,
             COALESCE(SUM(n) FILTER (WHERE status = 'Failed'), 0) AS failed,
             COALESCE(SUM(n) FILTER (WHERE is_occurrence = 1), 0) AS occurrences
        FROM stat_tasks_v`);
    return row!;
  };
}
