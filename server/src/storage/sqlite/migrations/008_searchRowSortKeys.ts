/**
 * Migration 8: search rows that can be sorted and paged on their own, and a substring index of
 * task keys.
 *
 * - `task_search_rows` (the stable integer key of a task in the full-text indexes) gains the
 *   task's grouping columns: created_at, queue, type, is_recurring and is_occurrence. These change
 *   only when a schedule's definition is rewritten, through the same task writer that keeps the
 *   read models, in the same transaction. A search whose other filters and sort order use only
 *   these columns counts, sorts and pages its matches in this table and reads just the page's
 *   task rows. Search rows are numbered in the order the task rows were inserted, so their key
 *   breaks ties among equal sort values in the order the task table's rowid does.
 * - `task_key_fts`: a trigram full-text index (contentless) over task keys, one row per keyed
 *   task under its search-row key. A search term of three characters or more finds the keys that
 *   contain it without scanning every key; a shorter term falls back to that scan.
 *
 * The table is rebuilt rather than altered so that its rows are written once, in key order.
 */
export const migration008SearchRowSortKeys = `
CREATE TABLE task_search_rows_v8 (
  id             INTEGER PRIMARY KEY,
  task_id        TEXT NOT NULL UNIQUE,
  created_at     INTEGER NOT NULL,
  queue          TEXT NOT NULL,
  type           TEXT NOT NULL,
  is_recurring   INTEGER NOT NULL,
  is_occurrence  INTEGER NOT NULL
);
INSERT INTO task_search_rows_v8 (id, task_id, created_at, queue, type, is_recurring, is_occurrence)
  SELECT s.id, s.task_id, t.created_at, t.queue, t.type, t.is_recurring, t.parent_task_id IS NOT NULL
    FROM task_search_rows s JOIN tasks t ON t.id = s.task_id ORDER BY s.id;
DROP TABLE task_search_rows;
ALTER TABLE task_search_rows_v8 RENAME TO task_search_rows;

CREATE VIRTUAL TABLE task_key_fts USING fts5(task_key, tokenize = 'trigram', content = '', contentless_delete = 1);
INSERT INTO task_key_fts (rowid, task_key)
  SELECT s.id, t.task_key FROM task_search_rows s JOIN tasks t ON t.id = s.task_id WHERE t.task_key IS NOT NULL;
`;
