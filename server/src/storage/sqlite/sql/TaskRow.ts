
export type { RunnableTaskRow } from '../../EngineStore.js';

export const RUNNABLE_COLUMNS = `id, type, handler, request, queue, status, task_key, audit_level, created_at,
  scheduled_at, attempt, retry_policy, timeout_ms, rate_limit_key, is_recurring, recurrence, run_count, parent_task_id, abandoned_count, traceparent, tracestate,
  (SELECT COALESCE(MAX(sequence_number), 0) FROM execution_logs WHERE task_id = tasks.id) AS last_log_sequence, reserved_at`;

/**
 * SQL predicate of a claim's candidates, with two parameters (now, and the instant before which a
 * reservation no longer holds): Queued, not throttled, and not reserved by an engine recently.
 */
export const CLAIMABLE = `status = 'Queued' AND (throttled_until IS NULL OR throttled_until <= ?)
      AND (reserved_by IS NULL OR reserved_at <= ?)`;

/** SQL predicate: the row is a durable schedule definition (never runs a handler itself). */
export const IS_SCHEDULE_ROW = `(occurrence_mode IS 'Durable' AND parent_task_id IS NULL)`;

export const TERMINAL_STATUSES_SQL = `('Completed', 'Failed', 'Cancelled')`;
