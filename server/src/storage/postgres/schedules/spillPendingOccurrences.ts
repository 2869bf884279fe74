import type { PoolClient } from 'pg';
import { auditAllows } from '../../common/auditAllows.js';

/** The task columns a compact occurrence fills (the rest keep their defaults, as for any occurrence). */
const COLUMNS = `id, type, handler, request, queue, status, audit_level, created_at, scheduled_at, is_recurring,
  occurrence_mode, time_zone_id, schedule_version, parent_task_id, nominal_slot_at, run_number, misfire_kind,
  missed_from, missed_through, missed_count, missed_count_is_exact, traceparent, tracestate`;

/** The audit levels that record a new occurrence's Pending (a transition without an error). */
const PENDING_AUDITED = (['Full', 'ErrorsOnly', 'None'] as const).filter((level) => auditAllows(level, null));

/** Which compact occurrences to turn into task rows. */
export type SpillSelection =
  | { due: number }
  | { scheduleId: string }
  | { ids: readonly string[] };

function condition(sel: SpillSelection): { sql: string; param: unknown; lock: string } {
  // Promotion skips rows another instance is spilling (it takes them next time); a write that
  // names its rows waits for them.
  if ('due' in sel) return { sql: 'scheduled_at <= $1', param: sel.due, lock: 'FOR UPDATE SKIP LOCKED' };
  if ('scheduleId' in sel) return { sql: 'schedule_ref = (SELECT ref FROM occurrence_schedules WHERE schedule_id = $1)', param: sel.scheduleId, lock: 'FOR UPDATE' };
  return { sql: 'id = ANY($1::text[])', param: [...sel.ids], lock: 'FOR UPDATE' };
}

/**
 * Turns the selected compact occurrences (oldest due first, at most `limit`) into the task rows
 * they stand for, inside the caller's transaction, in one statement: the same rows an occurrence
 * written whole would have (INSERT … SELECT from `pending_occurrence_tasks`), their Pending audits
 * at their creation time, the compact rows deleted; their search rows follow from the task rows
 * (the task table's triggers). The read models net to nothing: the task rows' insert trigger
 * counts them, the compact rows' delete trigger uncounts them (migration 19). One whose slot
 * already has a task row is dropped (deleted, so uncounted). Returns how many task rows were written.
 *
 * Everything that is not a read and touches a compact occurrence (promotion when due, a change or
 * cancellation of its schedule, a management action on it) first turns it into a task row here,
 * so the writers of task rows never need to know the compact form (the same rule as SQLite's).
 */
export async function spillPendingOccurrences(c: PoolClient, sel: SpillSelection, limit?: number): Promise<number> {
  // One probe answers the common case, no compact row at all.
  const any = await c.query(`SELECT 1 FROM pending_occurrences LIMIT 1`);
  if (any.rowCount === 0) return 0;
  const where = condition(sel);
  const { rows } = await c.query<{ written: number }>(
    `WITH chosen AS MATERIALIZED (
       SELECT seq FROM pending_occurrences WHERE ${where.sql} ORDER BY scheduled_at, seq ${limit === undefined ? '' : 'LIMIT $3'} ${where.lock}
     ), written AS (
       INSERT INTO tasks (${COLUMNS})
       SELECT ${COLUMNS} FROM pending_occurrence_tasks WHERE seq IN (SELECT seq FROM chosen) ORDER BY scheduled_at, seq
       ON CONFLICT (parent_task_id, nominal_slot_at) WHERE parent_task_id IS NOT NULL DO NOTHING
       RETURNING id, audit_level, created_at
     ), audited AS (
       INSERT INTO status_audit (task_id, updated_at, new_status) SELECT id, created_at, 'Pending' FROM written WHERE audit_level = ANY($2::text[])
     ), removed AS (
       DELETE FROM pending_occurrences WHERE seq IN (SELECT seq FROM chosen)
     )
     SELECT COUNT(*)::int AS written FROM written`,
    limit === undefined ? [where.param, PENDING_AUDITED] : [where.param, PENDING_AUDITED, limit],
  );
  return rows[0]!.written;
}
