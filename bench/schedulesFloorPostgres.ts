// The floor of bench:schedules on PostgreSQL: the catch-up's compact occurrence rows (migration 19)
// read back in insertion order, then written again by hand into the emptied table, in
// transactions of the materializer's size (20,000 rows), one binary COPY each (the same statement
// and encoding as the catch-up's, `connection/copyRows.ts`), counted in the read models as the
// catch-up counts them (their deltas appended ahead, one fact per group, `appendCompactDeltasAhead`;
// the table's indexes are the schema's), nothing else: no planning, no schedule reads or updates.
// New ids, as the catch-up assigns them.
import type { PostgresStorage } from '../server/src/storage/postgres/PostgresStorage.js';
import { copyRows, type CopyColumn, type CopyValue } from '../server/src/storage/postgres/connection/copyRows.js';
import { appendCompactDeltasAhead, type CompactGroup } from '../server/src/storage/postgres/schedules/insertCompactOccurrences.js';
import { uuidV7 } from '../server/src/engine/uuidV7.js';

const ROWS_PER_TRANSACTION = 20_000;
const COLUMNS: readonly CopyColumn[] = [
  { name: 'schedule_ref', type: 'int8' }, { name: 'nominal_slot_at', type: 'int8' }, { name: 'scheduled_at', type: 'int8' },
  { name: 'created_at', type: 'int8' }, { name: 'run_number', type: 'int4' }, { name: 'schedule_version', type: 'int4' },
  { name: 'handler', type: 'text' }, { name: 'misfire_kind', type: 'text' }, { name: 'missed_from', type: 'int8' },
  { name: 'missed_through', type: 'int8' }, { name: 'missed_count', type: 'int4' }, { name: 'missed_count_is_exact', type: 'int4' },
];
const ID: CopyColumn = { name: 'id', type: 'text' };

/** The compact rows in insertion order, each with its id's place first (filled by the insert). */
export interface CompactRows {
  count: number;
  rows: CopyValue[][];
  /** Each schedule's read-model group (queue, type), by its number. */
  groupOf: Map<number, { queue: string; type: string }>;
}

/** Reads the catch-up's compact rows back (in seq order) and empties the table (TRUNCATE: no trigger, no dead rows left). */
export async function takeCompactRows(storage: PostgresStorage): Promise<CompactRows> {
  const select = COLUMNS.map((c) => (c.type === 'int8' ? `${c.name}::float8` : c.name)).join(', ');
  const { rows } = await storage.pool.query<CopyValue[]>({ text: `SELECT NULL::text, ${select} FROM "${storage.schema}".pending_occurrences ORDER BY seq`, rowMode: 'array' });
  const { rows: schedules } = await storage.query<{ ref: string; queue: string; type: string }>(
    'SELECT o.ref, s.queue, s.type FROM occurrence_schedules o JOIN tasks s ON s.id = o.schedule_id');
  await storage.query('TRUNCATE pending_occurrences');
  return { count: rows.length, rows, groupOf: new Map(schedules.map((r) => [Number(r.ref), { queue: r.queue, type: r.type }])) };
}

/** Inserts the rows by hand in batches; the caller times it. */
export async function insertHandWrittenCompactPg(storage: PostgresStorage, taken: CompactRows): Promise<void> {
  const columns = [ID, ...COLUMNS];
  for (let from = 0; from < taken.count; from += ROWS_PER_TRANSACTION) {
    const n = Math.min(taken.count, from + ROWS_PER_TRANSACTION) - from;
    await storage.transaction(async (c) => {
      // Rows per schedule and creation time, then each schedule's group: nothing allocated per row.
      const counts = new Map<number, Map<number, number>>();
      for (let i = from; i < from + n; i++) {
        const row = taken.rows[i]!;
        let byTime = counts.get(row[1] as number);
        if (byTime === undefined) counts.set(row[1] as number, (byTime = new Map()));
        byTime.set(row[4] as number, (byTime.get(row[4] as number) ?? 0) + 1);
      }
      const groups: CompactGroup[] = [];
      for (const [ref, byTime] of counts) {
        for (const [createdAt, count] of byTime) groups.push({ ...taken.groupOf.get(ref)!, createdAt, n: count });
      }
      await appendCompactDeltasAhead(c, groups);
      await copyRows(c, 'pending_occurrences', columns, n, (i) => {
        const row = taken.rows[from + i]!;
        row[0] = uuidV7();
        return row;
      });
    });
  }
}
