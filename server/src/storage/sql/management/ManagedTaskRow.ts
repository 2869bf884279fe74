import type { Database } from 'better-sqlite3';
import type { AuditLevel, TaskStatus } from '../../../contracts/index.js';
import { preparedStatement } from '../schedules/preparedStatement.js';

/** The columns retry and the bulk actions check before they change a row. */
export interface ManagedTaskRow {
  id: string;
  type: string;
  handler: string;
  request: string;
  queue: string;
  status: TaskStatus;
  audit_level: AuditLevel;
  parent_task_id: string | null;
  is_recurring: 0 | 1;
  is_schedule: 0 | 1;
  created_at: number;
  /** Status of the occurrence's schedule row (null: not an occurrence, or the schedule row is gone). */
  parent_status: TaskStatus | null;
}

export function selectManagedTask(db: Database, id: string): ManagedTaskRow | undefined {
  return preparedStatement(
    db,
    `SELECT t.id, t.type, t.handler, t.request, t.queue, t.status, t.audit_level, t.parent_task_id, t.is_recurring, t.created_at,
            (t.occurrence_mode IS 'Durable' AND t.parent_task_id IS NULL) AS is_schedule,
            p.status AS parent_status
       FROM tasks t LEFT JOIN tasks p ON p.id = t.parent_task_id
      WHERE t.id = ?`,
  ).get(id) as ManagedTaskRow | undefined;
}
