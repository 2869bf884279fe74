import type { AuditLevel, TaskStatus } from '../../contracts/index.js';

/** The columns the engine reads back to run a claimed row (names as in 001_tasks.ts). */
export interface RunnableTaskRow {
  id: string;
  type: string;
  handler: string;
  request: string;
  queue: string;
  status: TaskStatus;
  task_key: string | null;
  audit_level: AuditLevel;
  created_at: number;
  scheduled_at: number | null;
  attempt: number;
  retry_policy: string | null;
  timeout_ms: number | null;
  rate_limit_key: string | null;
  is_recurring: 0 | 1;
  recurrence: string | null;
  run_count: number;
  parent_task_id: string | null;
}

export const RUNNABLE_COLUMNS = `id, type, handler, request, queue, status, task_key, audit_level, created_at,
  scheduled_at, attempt, retry_policy, timeout_ms, rate_limit_key, is_recurring, recurrence, run_count, parent_task_id`;

/** SQL predicate: the row is a durable schedule definition (never runs a handler itself). */
export const IS_SCHEDULE_ROW = `(occurrence_mode IS 'Durable' AND parent_task_id IS NULL)`;

export const TERMINAL_STATUSES_SQL = `('Completed', 'Failed', 'Cancelled')`;
