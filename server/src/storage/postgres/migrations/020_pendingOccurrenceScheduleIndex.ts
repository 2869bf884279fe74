/**
 * PostgreSQL migration 20: each schedule's compact Pending occurrences in creation order, as
 * SQLite's migration 19 (the same reads in `reads/compactPageSeqs.ts`); the index names `seq`,
 * which SQLite's secondary indexes end with implicitly.
 */
export const pgMigration020PendingOccurrenceScheduleIndex = `
CREATE INDEX ix_pending_occurrences_schedule_created ON pending_occurrences (schedule_ref, created_at, seq);
`;
