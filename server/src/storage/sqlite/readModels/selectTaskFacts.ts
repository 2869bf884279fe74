import type { Database } from 'better-sqlite3';
import { preparedStatement } from '../schedules/preparedStatement.js';
import type { TaskRowFacts } from './readModelDeltas.js';

/** The columns of a task row that the read models read (undefined: no such row). */
export function selectTaskFacts(db: Database, id: string): TaskRowFacts | undefined {
  return preparedStatement(
    db,
    `SELECT id, queue, type, handler, request, status, task_key, is_recurring, parent_task_id IS NOT NULL AS is_occurrence, created_at,
            run_count, last_outcome, last_execution_at, execution_time_ms, exception
       FROM tasks WHERE id = ?`,
  ).get(id) as TaskRowFacts | undefined;
}
