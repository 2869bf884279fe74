/**
 * Migration 19: each schedule's compact Pending occurrences in creation order. A list that reads
 * few schedules' compact rows (a sort by type or queue, whose groups' rows are in creation order;
 * a filter on a schedule's queue, type or parent) reads each schedule's first rows from this index
 * and merges them, instead of walking the whole creation-time index past every other schedule's
 * rows (see `reads/compactPageSeqs.ts`). Its entries are (schedule_ref, created_at, seq): a
 * catch-up writes a schedule's rows together with one creation time, so each insert lands next to
 * the one before it. Other orders of a schedule's rows read them by the slot index and sort them.
 */
export const migration019PendingOccurrenceScheduleIndex = `
CREATE INDEX ix_pending_occurrences_schedule_created ON pending_occurrences (schedule_ref, created_at);
`;
