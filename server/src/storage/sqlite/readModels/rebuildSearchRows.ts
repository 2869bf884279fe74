import type { Database } from 'better-sqlite3';
import { searchRowOrderCheckSql } from '../migrations/009_searchRowOrder.js';
import { detectSchemaFeatures } from '../monitoring/detectSchemaFeatures.js';

/**
 * Rebuilds the search rows and both full-text indexes (arguments, task keys) from the task table
 * in one pass each, numbering the search rows with the task rowids, which are in insertion order
 * as the writer's numbering is. For a task table loaded in bulk with raw inserts (benches, imports).
 * `withStatus`: the schema's search rows carry the status (migration 10).
 *
 * Compact Pending occurrences (migration 15, `pending_occurrences`) get none, on purpose: a compact
 * occurrence has no search row while it is compact (the catch-up that writes it writes none, which
 * is what makes it cheap), and gets one, numbered as any new row, when it becomes a task row
 * (`spillPendingOccurrences`); reads find compact occurrences through `pending_occurrence_tasks`.
 * So the search rows of the task table are all the search rows there are, and a rebuild from it
 * equals what the writers keep.
 */
export const rebuildSearchRowsSql = (withStatus: boolean): string => `
DELETE FROM task_request_fts; DELETE FROM task_key_fts; DELETE FROM task_search_rows;
INSERT INTO task_search_rows (id, task_id, created_at, queue, type, is_recurring, is_occurrence${withStatus ? ', status' : ''})
  SELECT rowid, id, created_at, queue, type, is_recurring, parent_task_id IS NOT NULL${withStatus ? ', status' : ''} FROM tasks NOT INDEXED;
INSERT INTO task_request_fts (rowid, request) SELECT rowid, request FROM tasks NOT INDEXED;
INSERT INTO task_key_fts (rowid, task_key) SELECT rowid, task_key FROM tasks NOT INDEXED WHERE task_key IS NOT NULL;
`;

/**
 * Runs `rebuildSearchRowsSql` in one write transaction, then records whether the rebuilt rows'
 * key order is their creation-time order (on a schema that records it).
 */
export function rebuildSearchRows(db: Database): void {
  db.transaction(() => {
    const features = detectSchemaFeatures(db);
    db.exec(rebuildSearchRowsSql(features.searchRowStatus));
    if (features.searchRowOrder) db.exec(searchRowOrderCheckSql);
  }).immediate();
}
