/**
 * Migration 16: the compact Pending occurrences in creation order. The task list's default sort
 * (newest first) and its Pending filter read a page of compact occurrences by (created_at,
 * insertion order); without an index that was a sort of every compact row (over a second for a
 * 1.44 M-row backlog, the event loop blocked throughout). With this index (its entries are
 * (created_at, seq), seq being the table's key) the page is the index's first entries. The due
 * index (scheduled_at, seq) of migration 15 serves the due-time sort the same way; every other
 * sort column is a constant or a schedule's column for a compact occurrence (see
 * `reads/pendingOccurrenceReads.ts`).
 *
 * A catch-up writes its rows with one creation time in ascending seq, so each insert appends to
 * the index's last page.
 */
export const migration016PendingOccurrenceSortIndex = `
CREATE INDEX ix_pending_occurrences_created ON pending_occurrences (created_at);
`;
