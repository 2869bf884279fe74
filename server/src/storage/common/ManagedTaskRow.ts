import type { AuditLevel, TaskStatus } from '../../contracts/index.js';

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
