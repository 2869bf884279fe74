import type { PoolClient } from 'pg';
import type { NewOccurrence } from '../../EngineStore.js';
import { copyRows, type CopyColumn } from '../connection/copyRows.js';

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

/** The compact occurrence's columns, in the order `insertCompactOccurrences` writes them (migration 19's types). */
const COLUMNS: readonly CopyColumn[] = [
  { name: 'id', type: 'text' }, { name: 'schedule_ref', type: 'int8' }, { name: 'nominal_slot_at', type: 'int8' },
  { name: 'scheduled_at', type: 'int8' }, { name: 'created_at', type: 'int8' }, { name: 'run_number', type: 'int4' },
  { name: 'schedule_version', type: 'int4' }, { name: 'handler', type: 'text' }, { name: 'misfire_kind', type: 'text' },
  { name: 'missed_from', type: 'int8' }, { name: 'missed_through', type: 'int8' }, { name: 'missed_count', type: 'int4' },
  { name: 'missed_count_is_exact', type: 'int4' },
];

/**
 * Inserts Pending occurrences in their compact form (migration 19) with one COPY, in the order
 * given, with `ids[i]` as the id of `rows[i]`; `parents` gives each schedule's number and handler
 * (an occurrence's handler is stored only where it differs). The caller has left out every slot
 * its schedule already holds (`withoutWrittenSlots`, both forms, under the schedule row's lock):
 * COPY has no ON CONFLICT, so a slot written twice fails the transaction instead of being skipped.
 * The read models count the rows written (the table's insert trigger, which COPY fires as INSERT
 * does). Returns how many rows were written.
 */
export async function insertCompactOccurrences(
  c: PoolClient,
  rows: readonly NewOccurrence[],
  ids: readonly string[],
  parents: ReadonlyMap<string, CompactParent>,
): Promise<number> {
  return copyRows(c, 'pending_occurrences', COLUMNS, rows.length, (i) => {
    const o = rows[i]!;
    const parent = parents.get(o.parentTaskId)!;
    return [ids[i]!, parent.ref, o.nominalSlotAt, o.scheduledAt, o.createdAt, o.runNumber, o.scheduleVersion,
      o.handler === parent.handler ? null : o.handler, o.misfireKind, o.missedFrom, o.missedThrough, o.missedCount, o.missedCountIsExact];
  });
}
