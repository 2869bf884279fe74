/**
 * Migration 12: rows taken ahead of a free worker stay Queued, marked reserved; runs carry a token.
 *
 * - `reserved_by`, `reserved_at`: the engine instance holding a Queued row for one of its workers,
 *   and since when (engine clock, ms); once the run starts `reserved_by` is cleared and
 *   `reserved_at` stays, the instant the row was taken (what a rate window counted). A reservation is short; one older than the claiming
 *   engine's budget is ignored by every claim, so a row held by a process that died runs anyway.
 * - `run_token`: written when a handler begins (Queued → InProgress); every write that ends, fails,
 *   stops or re-queues that run names it, so a run whose row was recovered and started again
 *   elsewhere can no longer change the row.
 */
export const migration012Reservations = `
ALTER TABLE tasks ADD COLUMN reserved_by TEXT;
ALTER TABLE tasks ADD COLUMN reserved_at INTEGER;
ALTER TABLE tasks ADD COLUMN run_token TEXT;
`;
