// The floor of bench:schedules on PostgreSQL: the catch-up's compact occurrence rows (migration 19)
// read back in insertion order, then written again by hand into the emptied table, in
// transactions of the materializer's size (20,000 rows), one multi-row INSERT … SELECT FROM
// unnest(…) each, nothing else (the table's indexes and its read-model trigger are the schema's,
// as for the catch-up). New ids, as the catch-up assigns them.
import type { PostgresStorage } from '../server/src/storage/postgres/PostgresStorage.js';
import { uuidV7 } from '../server/src/engine/uuidV7.js';

const ROWS_PER_TRANSACTION = 20_000;
const COLUMNS = ['schedule_ref', 'nominal_slot_at', 'scheduled_at', 'created_at', 'run_number', 'schedule_version', 'handler',
  'misfire_kind', 'missed_from', 'missed_through', 'missed_count', 'missed_count_is_exact'] as const;
const TYPES = ['bigint', 'bigint', 'bigint', 'bigint', 'int', 'int', 'text', 'text', 'bigint', 'bigint', 'int', 'int'];

/** The compact rows, column by column, in insertion order. */
export type CompactColumns = unknown[][];

/** Reads the catch-up's compact rows back (in seq order) and empties the table (TRUNCATE: no trigger, no dead rows left). */
export async function takeCompactRows(storage: PostgresStorage): Promise<{ count: number; columns: CompactColumns }> {
  const { rows } = await storage.query<Record<string, unknown>>(`SELECT ${COLUMNS.join(', ')} FROM pending_occurrences ORDER BY seq`);
  await storage.query('TRUNCATE pending_occurrences');
  return { count: rows.length, columns: COLUMNS.map((c) => rows.map((r) => r[c])) };
}

/** Inserts the rows by hand in batches; the caller times it. */
export async function insertHandWrittenCompactPg(storage: PostgresStorage, rows: { count: number; columns: CompactColumns }): Promise<void> {
  const unnest = TYPES.map((t, i) => `$${i + 2}::${t}[]`).join(', ');
  const sql = `INSERT INTO pending_occurrences (id, ${COLUMNS.join(', ')}) SELECT * FROM unnest($1::text[], ${unnest})`;
  for (let from = 0; from < rows.count; from += ROWS_PER_TRANSACTION) {
    const to = Math.min(rows.count, from + ROWS_PER_TRANSACTION);
    const ids = Array.from({ length: to - from }, () => uuidV7());
    await storage.transaction(async (c) => {
      await c.query(sql, [ids, ...rows.columns.map((col) => col.slice(from, to))]);
    });
  }
}
