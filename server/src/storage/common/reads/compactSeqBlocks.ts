import type { ReadDb } from './ReadDb.js';

/**
 * A page deep in compact occurrences found by counts (SQLite migration 20, PostgreSQL 24:
 * `compact_seq_blocks` counts the compact rows of each schedule and creation time by block of
 * 4,096 seqs, kept in the same transaction as the rows). Rules:
 * - the rows of some schedules in creation-time order then seq (or seq order) are their blocks in
 *   that order, each block's rows in seq order: so the block holding position `skip` is found by
 *   summing block counts, and only that block's rows (at most 4,096 seqs of the compact table's
 *   index) are read, never the rows before it;
 * - the counts are exact (written with the rows), so the page is the one reading every row gives.
 */
export const BLOCK_SEQS = 4096;

/** Which schedules: their refs, or every schedule. */
export type BlockSchedules = readonly number[] | 'every';

interface Block {
  created: number;
  block: number;
  n: number;
}

const scheduleCondition = (db: ReadDb, refs: BlockSchedules, column: string) =>
  refs === 'every' ? { sql: '', params: [] as unknown[] } : { sql: `AND ${column} IN (${db.dialect.jsonIntegers})`, params: [JSON.stringify(refs)] as unknown[] };


/** How many compact rows the chosen schedules have (a group wholly before a page is skipped by it). */
export async function compactRowsOf(db: ReadDb, refs: readonly number[]): Promise<number> {
  const [row] = await db.query<{ n: number | string | null }>(
    `SELECT SUM(n) AS n FROM compact_seq_blocks WHERE schedule_ref IN (${db.dialect.jsonIntegers})`,
    [JSON.stringify(refs)],
  );
  return Number(row?.n ?? 0);
}

/**
 * The seqs at positions [skip, skip+take) of the chosen schedules' compact rows in creation-time
 * order then seq (`byCreated`) or in seq order, descending or not.
 */
export async function compactBlockPage(db: ReadDb, refs: BlockSchedules, byCreated: boolean, desc: boolean, skip: number, take: number): Promise<number[]> {
  const which = scheduleCondition(db, refs, 'schedule_ref');
  const created = byCreated ? 'created_at' : '0';
  const blocks = (
    await db.query<{ c: number | string; b: number | string; n: number | string }>(
      `SELECT ${created} AS c, block AS b, SUM(n) AS n FROM compact_seq_blocks WHERE n > 0 ${which.sql} GROUP BY ${byCreated ? 'created_at, block' : 'block'}`,
      which.params,
    )
  ).map((r): Block => ({ created: Number(r.c), block: Number(r.b), n: Number(r.n) }));
  blocks.sort((a, b) => (a.created !== b.created ? a.created - b.created : a.block - b.block));
  if (desc) blocks.reverse();
  const dir = desc ? 'DESC' : 'ASC';
  // (unhinted: the block's seq range read by the list's index, each entry's schedule checked; not
  // each schedule's rows collected and sorted)
  const rowsOf = scheduleCondition(db, refs, db.dialect.unhinted('p.schedule_ref'));
  const out: number[] = [];
  let toSkip = skip;
  for (const b of blocks) {
    if (out.length >= take) break;
    if (toSkip >= b.n) {
      toSkip -= b.n;
      continue;
    }
    const from = b.block * BLOCK_SEQS;
    const rows = await db.query<{ seq: number | string }>(
      `SELECT p.seq AS seq FROM pending_occurrences p WHERE ${byCreated ? 'p.created_at = ? AND ' : ''}p.seq BETWEEN ? AND ? ${rowsOf.sql}
        ORDER BY p.seq ${dir} LIMIT ? OFFSET ?`,
      [...(byCreated ? [b.created] : []), from, from + BLOCK_SEQS - 1, ...rowsOf.params, take - out.length, toSkip],
    );
    for (const r of rows) out.push(Number(r.seq));
    toSkip = 0;
  }
  return out;
}
