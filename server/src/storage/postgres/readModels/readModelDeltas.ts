import { COUNTERS, type Counter, type CounterKey, type CounterSource, type CounterSum } from '../../common/readModels/counters.js';

/**
 * PostgreSQL's read-model deltas, generated from the one description of the counters
 * (`common/readModels/counters.ts`). Two writers append them: the statement triggers on `tasks`
 * (every writer but one; `readModelTriggerFunctions.ts`, installed by migrations) and the engine's
 * fast commit (which appends its own and has the UPDATE triggers step aside). Both build their
 * SQL here, so a new counter is one entry of COUNTERS and both follow.
 *
 * Each source of facts is a CTE both writers define, its columns named as the description's fields:
 * `moves (queue, type, status, is_recurring, is_occurrence, created_at, n)`,
 * `ran (id, type, queue, last_execution_at, last_outcome, execution_time_ms, exception)` and
 * `failed (id, type, last_execution_at, fingerprint)` (FAILED_CTE).
 */

/** The `failed` row set, defined over `ran` the same way for both writers. */
export const FAILED_CTE = `failed AS MATERIALIZED (SELECT id, type, last_execution_at, svc_failure_fingerprint(exception) AS fingerprint
    FROM ran WHERE last_outcome = 'Failed')`;

/** A group column's expression over its source (integer division for a bucket). */
const keySql = (k: CounterKey): string => {
  const from = k.from ?? k.column;
  return k.bucketMs === undefined ? from : `${from} / ${k.bucketMs}`;
};

/** An aggregate's expression over its source. */
function sumSql(s: CounterSum): string {
  const only = (agg: string) => (s.outcome === undefined ? agg : `${agg} FILTER (WHERE last_outcome = '${s.outcome}')`);
  switch (s.agg) {
    case 'sum':
      return s.empty === undefined ? only(`SUM(${s.of})`) : `COALESCE(${only(`SUM(${s.of})`)}, ${s.empty})`;
    case 'count':
      return only(`COUNT(${s.of ?? '*'})`);
    case 'min':
      return only(`MIN(${s.of})`);
    case 'max':
      return only(`MAX(${s.of})`);
    case 'latest':
      return `(${only(`array_agg(${s.of} ORDER BY ${s.by} DESC, ${s.of} DESC)`)})[1]`;
  }
}

/** The INSERT that writes one counter's groups, aggregated from its source's row set, into `table`. */
export function groupedInsert(c: Counter, table: string): string {
  const cols: [string, string][] = [...c.keys.map((k): [string, string] => [k.column, keySql(k)]), ...c.sums.map((s): [string, string] => [s.column, sumSql(s)])];
  const groupBy = c.keys.map((_, i) => i + 1).join(', ');
  const having = c.netted ? ` HAVING ${c.sums.map((s) => `${sumSql(s)} <> 0`).join(' OR ')}` : '';
  return `INSERT INTO ${table} (${cols.map(([col]) => col).join(', ')})
       SELECT ${cols.map(([, expr]) => expr).join(', ')} FROM ${c.source} GROUP BY ${groupBy}${having}`;
}

/** The INSERT that appends one counter's deltas from its row set. */
export const deltaInsert = (c: Counter): string => groupedInsert(c, `${c.table}_delta`);

/**
 * The delta INSERTs of the counters whose row sets a statement has (`sources`), each as a CTE
 * `<table>_d AS (INSERT ...)` to put in a WITH after the row sets' own CTEs.
 */
export function deltaInsertCtes(sources: readonly CounterSource[], counters: readonly Counter[] = COUNTERS): string[] {
  return counters.filter((c) => sources.includes(c.source)).map((c) => `${c.table}_d AS (\n    ${deltaInsert(c)})`);
}

/**
 * One statement (for a trigger function's body) that defines the row sets `ctes` and appends the
 * deltas of every counter reading them: a WITH of the row sets and all but the last INSERT, then
 * the last INSERT as the statement itself (PL/pgSQL runs no bare SELECT).
 */
export function deltaStatement(ctes: readonly string[], sources: readonly CounterSource[], counters: readonly Counter[] = COUNTERS): string {
  const reading = counters.filter((c) => sources.includes(c.source));
  const last = reading[reading.length - 1]!;
  const before = reading.slice(0, -1).map((c) => `${c.table}_d AS (\n    ${deltaInsert(c)})`);
  return `WITH ${[...ctes, ...before].join(',\n  ')}\n  ${deltaInsert(last)};`;
}
