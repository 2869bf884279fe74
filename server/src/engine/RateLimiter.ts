/**
 * Rate limit of a task type (optionally per key): at most `limit` starts per sliding `windowMs`;
 * a Queued row over its budget stays Queued with `throttledUntilUtc` set.
 */
export interface RateLimit {
  limit: number;
  windowMs: number;
}

/** Sliding-window start log per budget key (type, or type + rateLimitKey). In memory: budgets reset at start. */
export class RateLimiter {
  private readonly starts = new Map<string, number[]>();

  /** Counts a start decided elsewhere (a store that keeps shared windows), at its instant. */
  record(key: string, at: number): void {
    const log = this.starts.get(key);
    if (log === undefined) this.starts.set(key, [at]);
    else {
      let i = log.length;
      while (i > 0 && log[i - 1]! > at) i--;
      log.splice(i, 0, at);
    }
  }

  /** Takes one start from the budget and returns true, or returns the instant the budget frees up. */
  take(key: string, limit: RateLimit, now: number): true | number {
    let log = this.starts.get(key);
    if (log === undefined) {
      log = [];
      this.starts.set(key, log);
    }
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
}
