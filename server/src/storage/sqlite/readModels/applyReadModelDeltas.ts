import type { Database } from 'better-sqlite3';
import { preparedStatement } from '../schedules/preparedStatement.js';
import { CHUNK, inChunks, rows, statementFor } from './chunkedStatements.js';
import { writeCounters } from './counterUpserts.js';
import type { ReadModelDeltas } from './readModelDeltas.js';

/**
 * Writes what `deltas` collected into the read models, inside the caller's transaction: the
 * description's counters (task counts, creation buckets, run buckets, failure groups, queue
 * throughput, and any added), the argument index of new and changed requests, and the set of
 * (type, handler) pairs. Groups whose count did not change are skipped.
 */
export function applyReadModelDeltas(db: Database, d: ReadModelDeltas): void {
  if (d.empty) return;
  writeCounters(db, d.description, d.counters);
  writeSearchRows(db, d);
  if (d.typeHandlers.size > 0) {
    inChunks(db, 'monitor_type_handlers', [...d.typeHandlers.values()], (n) => `INSERT OR IGNORE INTO monitor_type_handlers (type, handler) VALUES ${rows(n, '(?, ?)')}`,
      (p, out) => out.push(p[0], p[1]));
  }
}

/**
 * The search rows and the full-text indexes, in the same transaction as the task rows: per new
 * task a search row (stable integer key, group columns for sorting and filtering), its request
 * in the argument index and its key, if any, in the key index; a changed request replaces the
 * argument row's text, a changed group rewrites the search row's copy, a changed key its key row.
 */
function writeSearchRows(db: Database, d: ReadModelDeltas): void {
  if (d.searchInserts.size > 0) {
    const entries = [...d.searchInserts];
    for (let start = 0; start < entries.length; start += CHUNK) {
      const chunk = entries.length <= CHUNK ? entries : entries.slice(start, start + CHUNK);
      // New rows take the keys after the last one, numbered here rather than read back.
      const last = preparedStatement(db, 'SELECT id, created_at FROM task_search_rows ORDER BY id DESC LIMIT 1').raw().get() as
        [number, number] | undefined;
      keepSearchRowOrder(db, last?.[1], chunk.map(([, r]) => r.created_at));
      const firstKey = (last?.[0] ?? 0) + 1;
      const values: unknown[] = [];
      // The status is read from the task row as it stands now: a status change earlier in this
      // transaction found no search row to update yet. By its rowid when every row of the chunk
      // came with one (a seek of the table alone, not of the id index first).
      const byRowid = chunk.every(([, r]) => r.rowid !== undefined);
      chunk.forEach(([taskId, r], i) => values.push(firstKey + i, taskId, r.created_at, r.queue, r.type, r.is_recurring, r.is_occurrence, byRowid ? r.rowid : taskId));
      statementFor(db, byRowid ? 'task_search_rows_by_rowid' : 'task_search_rows', chunk.length, (n) => `INSERT INTO task_search_rows
          (id, task_id, created_at, queue, type, is_recurring, is_occurrence, status)
          VALUES ${rows(n, `(?, ?, ?, ?, ?, ?, ?, (SELECT status FROM tasks WHERE ${byRowid ? 'rowid' : 'id'} = ?))`)}`)
        .run(values);
      const texts: unknown[] = [];
      chunk.forEach(([, r], i) => texts.push(firstKey + i, r.request));
      statementFor(db, 'task_request_fts', chunk.length, (n) => `INSERT INTO task_request_fts (rowid, request) VALUES ${rows(n, '(?, ?)')}`).run(texts);
      const keyed: [number, string][] = [];
      chunk.forEach(([, r], i) => {
        if (r.task_key !== null) keyed.push([firstKey + i, r.task_key]);
      });
      inChunks(db, 'task_key_fts', keyed, (n) => `INSERT INTO task_key_fts (rowid, task_key) VALUES ${rows(n, '(?, ?)')}`,
        ([key, taskKey], out) => out.push(key, taskKey));
    }
  }
  if (d.bulkInsertedAfterRowid !== null) writeBulkSearchRows(db, d.bulkInsertedAfterRowid, d.bulkInserted);
  const searchKey = (id: string) => preparedStatement(db, 'SELECT id FROM task_search_rows WHERE task_id = ?').pluck().get(id) as number | undefined;
  for (const [id, request] of d.searchUpdates) {
    const key = searchKey(id);
    if (key === undefined) continue;
    preparedStatement(db, 'UPDATE task_request_fts SET request = ? WHERE rowid = ?').run(request, key);
  }
  for (const [id, g] of d.searchRegroups) {
    keepRegroupedOrder(db, id, g.created_at);
    preparedStatement(db, 'UPDATE task_search_rows SET created_at = ?, queue = ?, type = ?, is_recurring = ?, is_occurrence = ? WHERE task_id = ?')
      .run(g.created_at, g.queue, g.type, g.is_recurring, g.is_occurrence, id);
  }
  for (const [id, taskKey] of d.searchKeyUpdates) {
    const key = searchKey(id);
    if (key === undefined) continue;
    preparedStatement(db, 'DELETE FROM task_key_fts WHERE rowid = ?').run(key);
    if (taskKey !== null) preparedStatement(db, 'INSERT INTO task_key_fts (rowid, task_key) VALUES (?, ?)').run(key, taskKey);
  }
}

/**
 * The search rows and full-text rows of every task row above `afterRowid` (inserted in bulk by
 * this transaction), read from the task rows themselves, one statement per table: keys after the
 * last one in rowid order, with the rows' current group columns, status, request and key. What
 * was recorded of them (`bulk`) spares passes over them: the key index is skipped when none has a
 * key, and rows of one creation time keep the key order unless that time is before the last row's.
 */
function writeBulkSearchRows(db: Database, afterRowid: number, bulk: ReadModelDeltas['bulkInserted']): void {
  const last = preparedStatement(db, 'SELECT id, created_at FROM task_search_rows ORDER BY id DESC LIMIT 1').raw().get() as
    [number, number] | undefined;
  const lastKey = last?.[0] ?? 0;
  if (isOrdered(db)) {
    // The key order stays the creation-time order if no new row was created before the one ahead of it.
    const goesBack = bulk.minCreatedAt === bulk.maxCreatedAt
      ? last !== undefined && bulk.minCreatedAt < last[1]
      : preparedStatement(db, `SELECT EXISTS (SELECT 1 FROM (
          SELECT created_at, lag(created_at, 1, ?) OVER (ORDER BY rowid) AS previous FROM tasks WHERE rowid > ?
        ) WHERE created_at < previous)`).pluck().get(last?.[1] ?? null, afterRowid) === 1;
    if (goesBack) clearOrdered(db);
  }
  const keyed = (columns: string) => `SELECT ? + row_number() OVER (ORDER BY rowid) AS search_key, ${columns} FROM tasks WHERE rowid > ?`;
  preparedStatement(db, `INSERT INTO task_search_rows (id, task_id, created_at, queue, type, is_recurring, is_occurrence, status)
    ${keyed('id, created_at, queue, type, is_recurring, is_occurrence, status')} ORDER BY rowid`).run(lastKey, afterRowid);
  preparedStatement(db, `INSERT INTO task_request_fts (rowid, request) ${keyed('request')}`).run(lastKey, afterRowid);
  if (!bulk.keyed) return;
  preparedStatement(db, `INSERT INTO task_key_fts (rowid, task_key)
    SELECT search_key, task_key FROM (${keyed('task_key')}) WHERE task_key IS NOT NULL`).run(lastKey, afterRowid);
}

const isOrdered = (db: Database): boolean =>
  (preparedStatement(db, 'SELECT ordered FROM search_row_order WHERE id = 1').pluck().get() as number | undefined) === 1;
const clearOrdered = (db: Database): void => {
  preparedStatement(db, 'UPDATE search_row_order SET ordered = 0 WHERE id = 1').run();
};

/**
 * New search rows take keys after every existing one, in the given order: the key order stays
 * the creation-time order while their creation times do not go back (from the last row's,
 * `previous`).
 */
function keepSearchRowOrder(db: Database, previous: number | undefined, createdAt: readonly number[]): void {
  if (!isOrdered(db)) return;
  for (const c of createdAt) {
    if (previous !== undefined && c < previous) {
      clearOrdered(db);
      return;
    }
    previous = c;
  }
}

/** A search row whose creation time changes keeps the order only if it stays between its neighbours'. */
function keepRegroupedOrder(db: Database, taskId: string, createdAt: number): void {
  if (!isOrdered(db)) return;
  const key = preparedStatement(db, 'SELECT id FROM task_search_rows WHERE task_id = ?').pluck().get(taskId) as number | undefined;
  if (key === undefined) return;
  const before = preparedStatement(db, 'SELECT created_at FROM task_search_rows WHERE id < ? ORDER BY id DESC LIMIT 1').pluck().get(key) as number | undefined;
  const after = preparedStatement(db, 'SELECT created_at FROM task_search_rows WHERE id > ? ORDER BY id LIMIT 1').pluck().get(key) as number | undefined;
  if ((before !== undefined && createdAt < before) || (after !== undefined && createdAt > after)) clearOrdered(db);
}
