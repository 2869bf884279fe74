import type { PoolClient } from 'pg';
import type { RateLimitSpec, RetryStart, RunnableTaskRow } from '../../EngineStore.js';

/**
 * Rate limits that hold across every instance on the store. The starts of each window are rows
 * of `rate_limit_starts`; a transaction that claims a rate-limited row first takes a transaction
 * advisory lock per rate-limited type (all of them, in name order, once: no two claimers wait on
 * each other in opposite orders), so claimers of those types take turns, each seeing every start
 * the others committed. A window is sliding, as in the engine's in-process limiter: a start at s
 * counts against the budget at every instant t with s ≤ t < s + windowMs; a row over its budget
 * is left throttled until the instant the oldest start that keeps the budget full leaves it.
 */
export class GlobalRateWindows {
  private locked = false;
  /** Start instants per budget (type + key), oldest first. */
  private readonly windows = new Map<string, number[]>();
  private readonly added: { type: string; key: string; at: number }[] = [];

  constructor(
    private readonly c: PoolClient,
    private readonly schema: string,
    private readonly limits: ReadonlyMap<string, RateLimitSpec>,
    private readonly now: number,
  ) {}

  /** Before `decide` on these candidates (claimed rows or retries): locks and reads the windows when one of them is rate limited. */
  async prepare(rows: readonly { type: string }[]): Promise<void> {
    if (this.locked || !rows.some((r) => this.limits.has(r.type))) return;
    this.locked = true;
    const types = [...this.limits.keys()].sort();
    for (const type of types) {
      await this.c.query(`SELECT pg_advisory_xact_lock(hashtext('svc_monitor.rate:' || $1 || ':' || $2))`, [this.schema, type]);
    }
    // Starts that left their window are dropped; those inside it are what this claim counts.
    await this.c.query(
      `DELETE FROM rate_limit_starts s USING unnest($1::text[], $2::bigint[]) AS l(type, horizon)
        WHERE s.type = l.type AND s.started_at <= l.horizon`,
      [types, types.map((t) => this.now - this.limits.get(t)!.windowMs)],
    );
    const { rows: starts } = await this.c.query<{ type: string; rate_key: string; started_at: number }>(
      `SELECT type, rate_key, started_at FROM rate_limit_starts WHERE type = ANY($1::text[]) ORDER BY started_at`,
      [types],
    );
    for (const s of starts) this.window(s.type, s.rate_key).push(s.started_at);
  }

  /** Run the row now (its start is counted) or leave it throttled until the returned instant. */
  decide(row: RunnableTaskRow): true | number {
    return this.take(row.type, row.rate_limit_key);
  }

  /** A retry's start: counted now, or the instant its window has room. */
  decideRetry(r: RetryStart): true | number {
    return this.take(r.type, r.rateLimitKey);
  }

  private take(type: string, rateKey: string | null): true | number {
    const limit = this.limits.get(type);
    if (limit === undefined) return true;
    const key = rateKey ?? '';
    const log = this.window(type, key);
    const horizon = this.now - limit.windowMs;
    let drop = 0;
    while (drop < log.length && log[drop]! <= horizon) drop++;
    if (drop > 0) log.splice(0, drop);
    if (log.length < limit.limit) {
      // oldest first, also when another instance's clock ran a little ahead of this one
      let at = log.length;
      while (at > 0 && log[at - 1]! > this.now) at--;
      log.splice(at, 0, this.now);
      this.added.push({ type, key, at: this.now });
      return true;
    }
    return log[log.length - limit.limit]! + limit.windowMs;
  }

  /** Writes the starts this transaction counted (before it commits, still under the locks). */
  async flush(): Promise<void> {
    if (this.added.length === 0) return;
    await this.c.query(`INSERT INTO rate_limit_starts (type, rate_key, started_at) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])`, [
      this.added.map((a) => a.type), this.added.map((a) => a.key), this.added.map((a) => a.at),
    ]);
    this.added.length = 0;
  }

  private window(type: string, key: string): number[] {
    const k = `${type}\u0000${key}`;
    let log = this.windows.get(k);
    if (log === undefined) {
      log = [];
      this.windows.set(k, log);
    }
    return log;
  }
}
