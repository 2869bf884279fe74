import type { AuditLevel, TaskStatus } from '../../../contracts/index.js';

/** The columns of a durable schedule row (or occurrence) that the schedule operations read. */
export interface ScheduleRow {
  id: string;
  type: string;
  handler: string;
  request: string;
  queue: string;
  status: TaskStatus;
  task_key: string | null;
  audit_level: AuditLevel;
  is_recurring: number;
  occurrence_mode: string | null;
  schedule_version: number | null;
  schedule_definition: string | null;
  cursor_at: number | null;
  halt: string | null;
  parent_task_id: string | null;
  scheduled_at: number | null;
  created_at: number;
}

export const SCHEDULE_COLUMNS = `id, type, handler, request, queue, status, task_key, audit_level, is_recurring,
  occurrence_mode, schedule_version, schedule_definition, cursor_at, halt, parent_task_id, scheduled_at, created_at`;

/** SQL condition selecting durable schedule rows (never run by the dispatcher). */
export const IS_SCHEDULE_ROW = `(is_recurring = 1 AND occurrence_mode = 'Durable' AND parent_task_id IS NULL)`;

export function isScheduleRow(row: Pick<ScheduleRow, 'is_recurring' | 'occurrence_mode' | 'parent_task_id'>): boolean {
  return row.is_recurring === 1 && row.occurrence_mode === 'Durable' && row.parent_task_id === null;
}
