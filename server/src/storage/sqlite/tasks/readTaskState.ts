import type { Database } from 'better-sqlite3';
import type { TaskState } from '../../EngineStore.js';

export type { TaskState };

/**
 * The few columns the engine needs to act on one row by id. Task rows only: the engine's cancel
 * first turns a compact occurrence of that id (migration 15) into its task row.
 */
export function prepareReadTaskState(db: Database): (id: string) => TaskState | undefined {
  const stmt = db.prepare(`SELECT id, type, handler, request, queue, status, audit_level, parent_task_id,
      (occurrence_mode IS 'Durable' AND parent_task_id IS NULL) AS is_schedule
    FROM tasks WHERE id = ?`);
  return (id) => stmt.get(id) as TaskState | undefined;
}
