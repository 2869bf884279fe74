/**
 * Rate limit of a task type (optionally per key): at most `limit` starts per sliding `windowMs`;
 * a Queued row over its budget stays Queued with `throttledUntilUtc` set.
 */
export interface RateLimit {
  limit: number;
  windowMs: number;
}

/**
 * Sliding-window start log per budget key (type, or type + rateLimitKey). In memory: budgets reset
 * at start. A key is forgotten once its window holds no start: every so many takes (as many as
 * keys are held, so the sweep costs O(1) per take on average) the keys whose last start left its
 * window are dropped, so a stream of distinct keys does not grow the map without bound.
 */
export class RateLimiter {
  private readonly starts = new Map<string, { log: number[]; windowMs: number }>();
  private takesSinceSweep = 0;

  /** Budget keys held now (keys with a start still inside their window, until the next sweep). */
  get size(): number {
    return this.starts.size;
  }

  /** Counts a start decided elsewhere (a store that keeps shared windows), at its instant. */
  record(key: string, at: number, limit: RateLimit): void {
    const entry = this.starts.get(key);
    if (entry === undefined) {
      this.starts.set(key, { log: [at], windowMs: limit.windowMs });
      return;
    }
    const log = entry.log;
    let i = log.length;
    while (i > 0 && log[i - 1]! > at) i--;
    log.splice(i, 0, at);
  }

  /** Takes one start from the budget and returns true, or returns the instant the budget frees up. */
  take(key: string, limit: RateLimit, now: number): true | number {
    if (++this.takesSinceSweep > this.starts.size) this.sweep(now);
    let entry = this.starts.get(key);
    if (entry === undefined) {
      entry = { log: [], windowMs: limit.windowMs };
      this.starts.set(key, entry);
    }
    entry.windowMs = limit.windowMs;
    const log = entry.log;
    const horizon = now - limit.windowMs;
    let drop = 0;
    while (drop < log.length && log[drop]! <= horizon) drop++;
    if (drop > 0) log.splice(0, drop);
    if (log.length < limit.limit) {
      log.push(now);
      return true;
    }
    return log[log.length - limit.limit]! + limit.windowMs;
  }

  private sweep(now: number): void {
    this.takesSinceSweep = 0;
    for (const [key, { log, windowMs }] of this.starts) {
      if (log.length === 0 || log[log.length - 1]! <= now - windowMs) this.starts.delete(key);
    }
  }
}
