/**
 * PostgreSQL migration 31: a queue's claim order is (created_at, seq), served by one index.
 *
 * Tasks dispatched in the same millisecond share `created_at`; ordered by it alone, a claim took
 * them in whatever order the index scan met them, so a task dispatched after another could run
 * first. `seq` (insertion order) breaks the tie, as SQLite's rowid does in its index. The claim
 * index gains it as its last column so that the claim's `ORDER BY created_at, seq LIMIT n` is
 * read off the index, with no sort of every row that shares a millisecond.
 */
export const pgMigration031ClaimOrderTieBreak = `
CREATE INDEX ix_tasks_queue_status_created_seq ON tasks (queue, status, created_at, seq);
DROP INDEX ix_tasks_queue_status_created;
`;
