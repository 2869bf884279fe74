import type { TaskCounts } from '../../../contracts/index.js';
import { queryOne, type ReadDb } from './ReadDb.js';

/** Task counts by category from the stat_tasks counters: O(groups). */
export function createTaskCounts(db: ReadDb) {
  const { model, sumWhere } = db.dialect;
  const sql = `
    SELECT COALESCE(SUM(n), 0) AS "all",
           COALESCE(${sumWhere('n', 'is_recurring = 0')}, 0) AS standard,
           COALESCE(${sumWhere('n', 'is_recurring = 1')}, 0) AS recurring,
           COALESCE(${sumWhere('n', "status = 'Failed'")}, 0) AS failed,
           COALESCE(${sumWhere('n', 'is_occurrence = 1')}, 0) AS occurrences
      FROM ${model('stat_tasks')}`;
  return function taskCounts(): Promise<TaskCounts> {
    return queryOne<TaskCounts>(db, sql);
  };
}
