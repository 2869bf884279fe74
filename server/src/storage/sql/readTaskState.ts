import type { Database } from 'better-sqlite3';
import type { AuditLevel, TaskStatus } from '../../contracts/index.js';

export interface TaskState {
  id: string;
  type: string;
  handler: string;
  request: string;
  queue: string;
  status: TaskStatus;
  audit_level: AuditLevel;
  parent_task_id: string | null;
  is_schedule: 0 | 1;
}

/** The few columns the engine needs to act on one row by id. */
export function prepareReadTaskState(db: Database): (id: string) => TaskState | undefined {
  const stmt = db.prepare(`SELECT id, type, handler, request, queue, status, audit_level, parent_task_id,
      (occurrence_mode IS 'Durable' AND parent_task_id IS NULL) AS is_schedule
    FROM tasks WHERE id = ?`);
  return (id) => stmt.get(id) as TaskState | undefined;
}
