/** How long a store call waits (asynchronously) for another connection's lock before giving up. */
export const BUSY_RETRY_LIMIT_MS = 10_000;

const isBusy = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || (typeof code === 'string' && code.startsWith('SQLITE_BUSY'));
};

/**
 * Runs a synchronous SQLite transaction; while another connection holds the lock (SQLITE_BUSY
 * after the connection's short busy timeout), tries again on a timer with backoff, so the event
 * loop never blocks for long. Other errors, and a lock held past `limitMs`, are thrown.
 */
export async function retryWhileBusy<T>(work: () => T, limitMs = BUSY_RETRY_LIMIT_MS): Promise<T> {
  const deadline = Date.now() + limitMs;
  let delay = 2;
  for (;;) {
    try {
      return work();
    } catch (err) {
      if (!isBusy(err) || Date.now() >= deadline) throw err;
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 50);
  }
}
