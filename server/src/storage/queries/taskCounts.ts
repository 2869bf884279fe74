import type { Database } from 'better-sqlite3';
import type { TaskCounts } from '../../contracts/index.js';

/** Task counts by category from the stat_tasks counters: O(groups). */
export function createTaskCounts(db: Database) {
  const st = db.prepare(`
    SELECT COALESCE(SUM(n), 0) AS "all",
           COALESCE(SUM(CASE WHEN is_recurring = 0 THEN n END), 0) AS standard,
           COALESCE(SUM(CASE WHEN is_recurring = 1 THEN n END), 0) AS recurring,
           COALESCE(SUM(CASE WHEN status = 'Failed' THEN n END), 0) AS failed,
           COALESCE(SUM(CASE WHEN is_occurrence = 1 THEN n END), 0) AS occurrences
      FROM stat_tasks`);
  return function taskCounts(): TaskCounts {
    return st.get() as TaskCounts;
  };
}
