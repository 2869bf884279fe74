import type { PoolClient } from 'pg';
import type { NewOccurrence } from '../../EngineStore.js';
import { COUNTERS, type Counter } from '../../common/readModels/counters.js';
import { copyRows, type CopyColumn, type CopyValue } from '../connection/copyRows.js';
import { deltaInsertCtes } from '../readModels/readModelDeltas.js';
import { COMPACT_DELTAS_WRITTEN_SETTING } from '../readModels/readModelTriggerFunctions.js';

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
 * Whether a counter over `moves` adds up to the same from one fact per group, its `n` the group's
 * row count, as from one fact per row (n = 1): sums of `n`, and minimums, maximums and latest
 * values of fields the group's facts share. A count of facts would not.
 */
const addsUpFromGroups = (c: Counter): boolean =>
  c.source !== 'moves' || c.sums.every((s) => (s.agg === 'sum' && s.of === 'n') || s.agg === 'min' || s.agg === 'max' || s.agg === 'latest');

/** Compact occurrences of one read-model group about to be written: their schedule's queue and type, their creation time, how many. */
export interface CompactGroup {
  queue: string;
  type: string;
  createdAt: number;
  n: number;
}

/** The groups of `rows` (in order of first appearance; nested maps: no key built per row). */
export function compactGroups(rows: Iterable<Pick<NewOccurrence, 'queue' | 'type' | 'createdAt'>>): CompactGroup[] {
  const all: CompactGroup[] = [];
  const byTime = new Map<number, Map<string, Map<string, CompactGroup>>>();
  for (const o of rows) {
    let byQueue = byTime.get(o.createdAt);
    if (byQueue === undefined) byTime.set(o.createdAt, (byQueue = new Map()));
    let byType = byQueue.get(o.queue);
    if (byType === undefined) byQueue.set(o.queue, (byType = new Map()));
    const g = byType.get(o.type);
    if (g !== undefined) g.n++;
    else {
      const added = { queue: o.queue, type: o.type, createdAt: o.createdAt, n: 1 };
      byType.set(o.type, added);
      all.push(added);
    }
  }
  return all;
}

/**
 * Appends the read-model deltas of compact occurrences about to be written in this transaction by
 * one insert, one fact per group carrying its row count, and tells the table's insert trigger that
 * its next insert is counted (it steps aside once: migration 22). Answers false, appending
 * nothing, when a counter of `counters` cannot add up from groups: the trigger counts then.
 */
export async function appendCompactDeltasAhead(c: PoolClient, groups: readonly CompactGroup[], counters: readonly Counter[] = COUNTERS): Promise<boolean> {
  if (groups.length === 0 || !counters.every(addsUpFromGroups)) return false;
  const deltas = deltaInsertCtes(['moves'], counters);
  await c.query(
    `WITH moves (queue, type, status, is_recurring, is_occurrence, created_at, n) AS MATERIALIZED (
       SELECT queue, type, 'Pending', 0, 1, created_at, n FROM unnest($1::text[], $2::text[], $3::bigint[], $4::int[]) AS g(queue, type, created_at, n))${
      deltas.map((d) => `,\n  ${d}`).join('')}
     SELECT set_config('${COMPACT_DELTAS_WRITTEN_SETTING}', 'on', true)`,
    [groups.map((g) => g.queue), groups.map((g) => g.type), groups.map((g) => g.createdAt), groups.map((g) => g.n)],
  );
  return true;
}

/**
 * Adds the (type, handler) pairs of compact occurrences about to be written to the set that type
 * and search filters resolve against (`monitor_type_handlers`), as a task row's insert does: an
 * occurrence's handler may differ from its schedule's. Pairs already there are skipped without a
 * lock; new ones are written in order, so that two writers adding the same pairs never wait for
 * each other in a cycle.
 */
export async function addCompactTypeHandlers(c: PoolClient, rows: readonly Pick<NewOccurrence, 'type' | 'handler'>[]): Promise<void> {
  const pairs = new Map<string, [string, string]>();
  for (const o of rows) pairs.set(`${o.type}\u0000${o.handler}`, [o.type, o.handler]);
  if (pairs.size === 0) return;
  const list = [...pairs.values()];
  await c.query(
    `INSERT INTO monitor_type_handlers (type, handler)
       SELECT p.type, p.handler FROM unnest($1::text[], $2::text[]) AS p(type, handler)
        WHERE NOT EXISTS (SELECT 1 FROM monitor_type_handlers m WHERE m.type = p.type AND m.handler = p.handler)
        ORDER BY 1, 2
     ON CONFLICT DO NOTHING`,
    [list.map((p) => p[0]), list.map((p) => p[1])],
  );
}

/**
 * Inserts Pending occurrences in their compact form (migration 19) with one COPY, in the order
 * given, with `ids[i]` as the id of `rows[i]`; `parents` gives each schedule's number and handler
 * (an occurrence's handler is stored only where it differs). The caller has left out every slot
 * its schedule already holds (`withoutWrittenSlots`, both forms, under the schedule row's lock):
 * COPY has no ON CONFLICT, so a slot written twice fails the transaction instead of being skipped.
 * The read models count the rows written (`counters`, the database's triggers' description): their
 * deltas are appended ahead from the rows in hand (`appendCompactDeltasAhead`), or else by the table's
 * insert trigger, which COPY fires as INSERT does; their (type, handler) pairs join the set the
 * filters resolve against (`addCompactTypeHandlers`). Returns how many rows were written.
 */
export async function insertCompactOccurrences(
  c: PoolClient,
  rows: readonly NewOccurrence[],
  ids: readonly string[],
  parents: ReadonlyMap<string, CompactParent>,
  counters: readonly Counter[] = COUNTERS,
): Promise<number> {
  if (rows.length === 0) return 0;
  await appendCompactDeltasAhead(c, compactGroups(rows), counters);
  await addCompactTypeHandlers(c, rows);
  // One array refilled for every row: copyRows encodes a row's values before it asks for the next.
  const values: CopyValue[] = new Array<CopyValue>(COLUMNS.length).fill(null);
  return copyRows(c, 'pending_occurrences', COLUMNS, rows.length, (i) => {
    const o = rows[i]!;
    const parent = parents.get(o.parentTaskId)!;
    values[0] = ids[i]!;
    values[1] = parent.ref;
    values[2] = o.nominalSlotAt;
    values[3] = o.scheduledAt;
    values[4] = o.createdAt;
    values[5] = o.runNumber;
    values[6] = o.scheduleVersion;
    values[7] = o.handler === parent.handler ? null : o.handler;
    values[8] = o.misfireKind;
    values[9] = o.missedFrom;
    values[10] = o.missedThrough;
    values[11] = o.missedCount;
    values[12] = o.missedCountIsExact;
    return values;
  });
}
