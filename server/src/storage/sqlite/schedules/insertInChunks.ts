import type { Statement } from 'better-sqlite3';

/** Rows per multi-row INSERT: large enough to spare statement runs, small enough for SQLite's variable limit. */
const CHUNK = 64;

/**
 * Inserts `count` rows with multi-row statements of up to CHUNK rows (`statementFor(n)` for n
 * rows, prepared once per n), `paramsOf(i, out)` appending row i's values. Returns the rows
 * written (a statement's conflicts skip rows).
 */
export function insertInChunks(count: number, statementFor: (rows: number) => Statement, paramsOf: (i: number, out: unknown[]) => void): number {
  let written = 0;
  for (let start = 0; start < count; start += CHUNK) {
    const end = Math.min(count, start + CHUNK);
    const params: unknown[] = [];
    for (let i = start; i < end; i++) paramsOf(i, params);
    written += statementFor(end - start).run(params).changes;
  }
  return written;
}
