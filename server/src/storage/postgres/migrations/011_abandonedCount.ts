/**
 * PostgreSQL migration 11: how many times each task's run was abandoned while running (its
 * instance died or lost its lease). Each recovery adds one; past the engine's `maxAbandoned`
 * the task ends Failed instead of running again. The SQLite schema has the same column.
 */
export const pgMigration011AbandonedCount = `
ALTER TABLE tasks ADD COLUMN abandoned_count INTEGER NOT NULL DEFAULT 0;
`;
