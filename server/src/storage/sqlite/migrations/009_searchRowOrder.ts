/**
 * Migration 9: whether the search rows' key order is also their creation-time order.
 *
 * Search rows are numbered in insertion order, and a task is inserted when it is created, so the
 * key order normally agrees with created_at (ties in insertion order, as the task table's rowid
 * breaks them). While it does, an argument search sorted by creation time can count and page its
 * matches inside the full-text index (whose rows are in key order) and read only the page's task
 * rows, instead of looking up every match's creation time. `search_row_order.ordered` records
 * it: computed here over the existing rows, cleared by the writer, in the same transaction, as
 * soon as a row would break it (a clock that went back, a schedule whose creation time is
 * rewritten out of place), and recomputed by a rebuild of the search rows.
 */
export const searchRowOrderCheckSql = `
INSERT OR REPLACE INTO search_row_order (id, ordered)
  SELECT 1, NOT EXISTS (
    SELECT 1 FROM (SELECT created_at < LAG(created_at) OVER (ORDER BY id) AS back FROM task_search_rows) WHERE back
  );
`;

export const migration009SearchRowOrder = `
CREATE TABLE search_row_order (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  ordered  INTEGER NOT NULL
);
${searchRowOrderCheckSql}
`;
