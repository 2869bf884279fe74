import type { Pool, PoolClient } from 'pg';

/**
 * Commits of this process that may have taken Queued rows from their reservations (a cancel by
 * id or in bulk, a schedule cancel, a definition change), counted per pool.
 *
 * An engine's claim or run check in flight on one connection may have read the rows before such
 * a cancel committed on another, and its answer may reach the engine after the cancel's answer
 * reached its caller. The engine reads this count before sending and again at the answer: a move
 * means the answer may be older than a cancel already answered, and no handler begins on it
 * without a new read (see EngineStore.rowsTakenAway). The count moves once the transaction ends
 * and before its caller hears of it; a transaction that fails after marking moves it too (its
 * outcome may be unknown; a needless move costs one read).
 */
const marked = new WeakSet<PoolClient>();
const counts = new WeakMap<Pool, number>();

/** The transaction running on `c` takes rows from their reservations (counted when it ends). */
export function takesRowsAway(c: PoolClient): void {
  marked.add(c);
}

/** How many such transactions of this pool have ended. */
export function rowsTakenAway(pool: Pool): number {
  return counts.get(pool) ?? 0;
}

/** The transaction on `c` ended (committed or not): counted when it was marked. */
export function transactionEnded(pool: Pool, c: PoolClient): void {
  if (marked.delete(c)) counts.set(pool, rowsTakenAway(pool) + 1);
}
