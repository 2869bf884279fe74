
export type { RunnableTaskRow } from '../EngineStore.js';

export const RUNNABLE_COLUMNS = `id, type, handler, request, queue, status, task_key, audit_level, created_at,
  scheduled_at, attempt, retry_policy, timeout_ms, rate_limit_key, is_recurring, recurrence, run_count, parent_task_id, abandoned_count, traceparent, tracestate,
  (SELECT COALESCE(MAX(sequence_number), 0) FROM execution_logs WHERE task_id = tasks.id) AS last_log_sequence`;

/** SQL predicate: the row is a durable schedule definition (never runs a handler itself). */
export const IS_SCHEDULE_ROW = `(occurrence_mode IS 'Durable' AND parent_task_id IS NULL)`;

export const TERMINAL_STATUSES_SQL = `('Completed', 'Failed', 'Cancelled')`;
