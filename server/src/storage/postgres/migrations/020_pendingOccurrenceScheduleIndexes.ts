/**
 * PostgreSQL migration 20: each schedule's compact Pending occurrences in creation order and in
 * due order, as SQLite's migration 19 (the same reads in `reads/compactPageSeqs.ts`); the indexes
 * name `seq`, which SQLite's secondary indexes end with implicitly.
 */
export const pgMigration020PendingOccurrenceScheduleIndexes = `
CREATE INDEX ix_pending_occurrences_schedule_created ON pending_occurrences (schedule_ref, created_at, seq);
CREATE INDEX ix_pending_occurrences_schedule_due ON pending_occurrences (schedule_ref, scheduled_at, seq);
`;
