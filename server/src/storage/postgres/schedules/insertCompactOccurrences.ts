import type { PoolClient } from 'pg';
import type { NewOccurrence } from '../../EngineStore.js';

/** What a compact occurrence reads from its schedule: its number (`occurrence_schedules`) and handler. */
export interface CompactParent {
  ref: number;
  handler: string;
}

/** The schedules' numbers for their compact occurrences (given on first use), by schedule id. */
export async function scheduleRefs(c: PoolClient, scheduleIds: readonly string[]): Promise<Map<string, number>> {
  if (scheduleIds.length === 0) return new Map();
  await c.query(`INSERT INTO occurrence_schedules (schedule_id) SELECT unnest($1::text[]) ORDER BY 1 ON CONFLICT (schedule_id) DO NOTHING`, [scheduleIds]);
  const { rows } = await c.query<{ ref: string; schedule_id: string }>(
    `SELECT ref, schedule_id FROM occurrence_schedules WHERE schedule_id = ANY($1::text[])`,
    [scheduleIds],
  );
  return new Map(rows.map((r) => [r.schedule_id, Number(r.ref)]));
}

/**
 * Inserts Pending occurrences in their compact form (migration 19) in one statement, in the order
 * given, with `ids[i]` as the id of `rows[i]`; `parents` gives each schedule's number and handler
 * (an occurrence's handler is stored only where it differs). A slot that already has a compact
 * occurrence is skipped. The read models count the rows written (the table's insert trigger).
 * Returns how many rows were written.
 */
export async function insertCompactOccurrences(
  c: PoolClient,
  rows: readonly NewOccurrence[],
  ids: readonly string[],
  parents: ReadonlyMap<string, CompactParent>,
): Promise<number> {
  if (rows.length === 0) return 0;
  const col = <T>(f: (o: NewOccurrence, i: number) => T) => rows.map(f);
  const parent = (o: NewOccurrence) => parents.get(o.parentTaskId)!;
  const res = await c.query(
    `INSERT INTO pending_occurrences (id, schedule_ref, nominal_slot_at, scheduled_at, created_at, run_number, schedule_version, handler,
                                      misfire_kind, missed_from, missed_through, missed_count, missed_count_is_exact)
     SELECT id, ref, slot, due, created, run, version, handler, kind, mfrom, mthrough, mcount, mexact
       FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::int[], $7::int[], $8::text[], $9::text[],
                   $10::bigint[], $11::bigint[], $12::int[], $13::int[])
            WITH ORDINALITY AS o(id, ref, slot, due, created, run, version, handler, kind, mfrom, mthrough, mcount, mexact, ord)
      ORDER BY ord
     ON CONFLICT (schedule_ref, nominal_slot_at) DO NOTHING`,
    [
      [...ids], col((o) => parent(o).ref), col((o) => o.nominalSlotAt), col((o) => o.scheduledAt), col((o) => o.createdAt), col((o) => o.runNumber),
      col((o) => o.scheduleVersion), col((o) => (o.handler === parent(o).handler ? null : o.handler)), col((o) => o.misfireKind),
      col((o) => o.missedFrom), col((o) => o.missedThrough), col((o) => o.missedCount), col((o) => o.missedCountIsExact),
    ],
  );
  return res.rowCount ?? 0;
}
