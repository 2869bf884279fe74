/**
 * Migration 19: each schedule's compact Pending occurrences in creation order and in due order.
 * A list that reads few schedules' compact rows (a sort by type or queue whose group has few
 * schedules; a filter on a schedule's queue, type or parent) reads each schedule's first rows from
 * these indexes and merges them, instead of walking the whole creation-time or due index past
 * every other schedule's rows (see `reads/compactPageSeqs.ts`). Their entries are (schedule_ref,
 * created_at, seq) and (schedule_ref, scheduled_at, seq): a catch-up writes a schedule's rows
 * together with one creation time, so each insert lands next to the one before it.
 */
export const migration019PendingOccurrenceScheduleIndexes = `
CREATE INDEX ix_pending_occurrences_schedule_created ON pending_occurrences (schedule_ref, created_at);
CREATE INDEX ix_pending_occurrences_schedule_due ON pending_occurrences (schedule_ref, scheduled_at);
`;
