import type { Database } from 'better-sqlite3';
import { preparedStatement } from './preparedStatement.js';

/** Occurrence rows per schedule among the task rows above `afterRowid` (the ones this transaction inserted). */
export function countOccurrencesAfter(db: Database, afterRowid: number): Map<string, number> {
  const rows = preparedStatement(
    db,
    'SELECT parent_task_id, count(*) FROM tasks WHERE rowid > ? AND parent_task_id IS NOT NULL GROUP BY parent_task_id',
  ).raw().all(afterRowid) as [string, number][];
  return new Map(rows);
}
