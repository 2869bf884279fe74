import type { Database, Statement } from 'better-sqlite3';

/** Distinct limits a query keeps as statements of their own; further values are bound as a parameter. */
const MAX_LITERAL_LIMITS = 32;

/** Rows of a select whose row limit is given per call: `select(limit, ...params)`. */
export type LimitedSelect = (limit: number, ...params: unknown[]) => unknown[];

/**
 * Prepares `sql(limit)` (a SELECT ending in `LIMIT ${limit}`) with the row limit written into its
 * text, one statement per limit value. SQLite's planner reads a bound `LIMIT ?` next to an ORDER
 * BY, so a statement holding one is prepared again every time that parameter is bound: about ten
 * times the cost of running it, on every claim. With the number in the text each statement is
 * prepared once. Past MAX_LITERAL_LIMITS distinct values the limit is bound (appended last).
 * `raw`: rows come as arrays of values (better-sqlite3's raw mode).
 */
export function prepareLimitedSelect(db: Database, sql: (limit: string) => string, raw = false): LimitedSelect {
  const byLimit = new Map<number, Statement>();
  let bound: Statement | undefined;
  return (limit, ...params) => {
    const n = Math.max(0, Math.trunc(limit));
    let statement = byLimit.get(n);
    if (statement === undefined && byLimit.size < MAX_LITERAL_LIMITS) {
      statement = db.prepare(sql(String(n))).raw(raw);
      byLimit.set(n, statement);
    }
    if (statement !== undefined) return statement.all(...params);
    bound ??= db.prepare(sql('?')).raw(raw);
    return bound.all(...params, n);
  };
}
