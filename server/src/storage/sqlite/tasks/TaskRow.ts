import type { RunnableTaskRow } from '../../EngineStore.js';

export type { RunnableTaskRow };

/**
 * The select list of a claim's candidates, each with its rowid (`row_key`), read as raw rows (values
 * by position) and turned into objects by `keyedRunnableRow`, which names them in this order:
 * better-sqlite3 builds a row object property by property, about three times the cost of
 * reading the row, where a literal of one fixed shape costs next to nothing.
 */
export const KEYED_RUNNABLE_COLUMNS = `id, type, handler, request, queue, status, task_key, audit_level, created_at,
  scheduled_at, attempt, retry_policy, timeout_ms, rate_limit_key, is_recurring, recurrence, run_count, parent_task_id, abandoned_count, traceparent, tracestate,
  (SELECT COALESCE(MAX(sequence_number), 0) FROM execution_logs WHERE task_id = tasks.id) AS last_log_sequence, reserved_at, rowid AS row_key, reserved_by`;

/** A claim's candidate with its rowid, which stays on the row for the run's start and end. */
export type KeyedRunnableRow = RunnableTaskRow & { row_key: number };

/**
 * A raw row of KEYED_RUNNABLE_COLUMNS as an object, read by the store of engine instance
 * `instanceId`: its `reserved_at` is the reservation the row carries before the claim, kept as
 * `reclaimed_from` when it is this instance's (the claim then writes its own instant over it).
 */
export function keyedRunnableRow(v: unknown[], instanceId: string): KeyedRunnableRow {
  return {
    id: v[0] as string,
    type: v[1] as string,
    handler: v[2] as string,
    request: v[3] as string,
    queue: v[4] as string,
    status: v[5] as RunnableTaskRow['status'],
    task_key: v[6] as string | null,
    audit_level: v[7] as RunnableTaskRow['audit_level'],
    created_at: v[8] as number,
    scheduled_at: v[9] as number | null,
    attempt: v[10] as number,
    retry_policy: v[11] as string | null,
    timeout_ms: v[12] as number | null,
    rate_limit_key: v[13] as string | null,
    is_recurring: v[14] as 0 | 1,
    recurrence: v[15] as string | null,
    run_count: v[16] as number,
    parent_task_id: v[17] as string | null,
    abandoned_count: v[18] as number,
    traceparent: v[19] as string | null,
    tracestate: v[20] as string | null,
    last_log_sequence: v[21] as number,
    reserved_at: v[22] as number,
    reclaimed_from: v[24] === instanceId ? (v[22] as number) : null,
    row_key: v[23] as number,
  };
}

/**
 * SQL predicate of a claim's candidates, with two parameters (now, and the instant before which a
 * reservation no longer holds): Queued, not throttled, and not reserved by an engine recently.
 */
export const CLAIMABLE = `status = 'Queued' AND (throttled_until IS NULL OR throttled_until <= ?)
      AND (reserved_by IS NULL OR reserved_at <= ?)`;

/** SQL predicate: the row is a durable schedule definition (never runs a handler itself). */
export const IS_SCHEDULE_ROW = `(occurrence_mode IS 'Durable' AND parent_task_id IS NULL)`;

export const TERMINAL_STATUSES_SQL = `('Completed', 'Failed', 'Cancelled')`;
