import type { PoolClient } from 'pg';
import type { NewOccurrence } from '../../EngineStore.js';
import { auditAllows } from '../../common/auditAllows.js';

/** The audit levels that record a transition without an error (a new occurrence's Pending). */
const PENDING_AUDITED = (['Full', 'ErrorsOnly', 'None'] as const).filter((level) => auditAllows(level, null));

/**
 * Inserts Pending occurrences as task rows in one statement, `ids[i]` the id of `rows[i]`, in
 * their order, with the Pending audit of each row written where its level records it. A slot that
 * already has an occurrence is skipped by the unique (parent_task_id, nominal_slot_at) index.
 * Returns how many rows were written.
 */
export async function insertOccurrences(c: PoolClient, rows: readonly NewOccurrence[], ids: readonly string[], now: number): Promise<number> {
  if (rows.length === 0) return 0;
  const col = <T>(f: (o: NewOccurrence) => T) => rows.map(f);
  const { rows: out } = await c.query<{ written: number }>(
    `WITH written AS (
     INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at, scheduled_at, is_recurring, occurrence_mode,
                        time_zone_id, schedule_version, parent_task_id, nominal_slot_at, run_number, misfire_kind, missed_from,
                        missed_through, missed_count, missed_count_is_exact, traceparent, tracestate)
     SELECT id, type, handler, request, queue, 'Pending', audit_level, created_at, scheduled_at, 0, 'Durable', tz, version, parent,
            slot, run_number, kind, mfrom, mthrough, mcount, mexact, tparent, tstate
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::text[],
                   $10::int[], $11::text[], $12::bigint[], $13::int[], $14::text[], $15::bigint[], $16::bigint[], $17::int[], $18::int[],
                   $19::text[], $20::text[])
            WITH ORDINALITY AS o(id, type, handler, request, queue, audit_level, created_at, scheduled_at, tz, version, parent, slot,
                                 run_number, kind, mfrom, mthrough, mcount, mexact, tparent, tstate, ord)
      ORDER BY ord
     ON CONFLICT (parent_task_id, nominal_slot_at) WHERE parent_task_id IS NOT NULL DO NOTHING
     RETURNING id, audit_level
     ), audited AS (
       INSERT INTO status_audit (task_id, updated_at, new_status)
       SELECT id, $21::bigint, 'Pending' FROM written WHERE audit_level = ANY($22::text[])
     )
     SELECT COUNT(*)::int AS written FROM written`,
    [
      [...ids], col((o) => o.type), col((o) => o.handler), col((o) => o.request), col((o) => o.queue), col((o) => o.auditLevel),
      col((o) => o.createdAt), col((o) => o.scheduledAt), col((o) => o.timeZoneId), col((o) => o.scheduleVersion), col((o) => o.parentTaskId),
      col((o) => o.nominalSlotAt), col((o) => o.runNumber), col((o) => o.misfireKind), col((o) => o.missedFrom), col((o) => o.missedThrough),
      col((o) => o.missedCount), col((o) => o.missedCountIsExact), col((o) => o.traceparent ?? null), col((o) => o.tracestate ?? null),
      now, PENDING_AUDITED,
    ],
  );
  return out[0]!.written;
}
