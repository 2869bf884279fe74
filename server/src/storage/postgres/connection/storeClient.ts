import type { Pool, PoolClient } from 'pg';
import { classifyTrouble } from './connectionTrouble.js';
import { transactionEnded } from './rowsTakenAway.js';

/**
 * Runs `work` on one pooled connection. While it is checked out the connection has an error
 * listener (the pool only listens to idle ones): a server that drops it between two statements
 * fails the next statement instead of crashing the process. A connection that was lost, or that
 * `work` marks with `discard()`, is closed instead of returned to the pool.
 */
export async function withClient<T>(pool: Pool, work: (c: PoolClient, discard: () => void) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  let broken: Error | null = null;
  const onError = (err: Error) => {
    broken = err;
  };
  const discard = () => {
    broken ??= new Error('connection discarded');
  };
  c.on('error', onError);
  try {
    const result = await work(c, discard);
    c.off('error', onError);
    c.release(broken ?? undefined);
    return result;
  } catch (err) {
    c.off('error', onError);
    if (broken === null && classifyTrouble(err) === 'lost') broken = err instanceof Error ? err : new Error(String(err));
    c.release(broken ?? undefined);
    throw err;
  }
}

/**
 * `work` in one transaction;
 * rolled back when it throws. `asyncCommit`: synchronous_commit off for this transaction only.
 */
export function inTransaction<T>(pool: Pool, work: (c: PoolClient) => Promise<T>, options: { asyncCommit?: boolean } = {}): Promise<T> {
  return withClient(pool, async (c, discard) => {
    await c.query(options.asyncCommit ? 'BEGIN; SET LOCAL synchronous_commit TO off' : 'BEGIN');
    try {
      const result = await work(c);
      await c.query('COMMIT');
      return result;
    } catch (err) {
      await c.query('ROLLBACK').catch(discard);
      throw err;
    } finally {
      transactionEnded(pool, c);
    }
  });
}

/**
 * An operator's transaction tried again when the server rolled it back for a conflict with
 * another transaction (a deadlock with an engine's commit, a serialization failure): nothing of
 * it was applied, so running it again is safe, and the operator gets an answer instead of a 503.
 * `attempt` must build its result inside the transaction. Three tries, then the conflict is the answer.
 */
export async function retryingConflicts<T>(attempt: () => Promise<T>, tries = 3): Promise<T> {
  for (let n = 1; ; n += 1) {
    try {
      return await attempt();
    } catch (err) {
      if (n >= tries || classifyTrouble(err) !== 'conflict') throw err;
    }
  }
}
