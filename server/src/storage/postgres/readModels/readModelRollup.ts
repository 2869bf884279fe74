import { COUNTERS, fieldMayBeNull, type Counter, type CounterSum } from '../../common/readModels/counters.js';

/** How rows of one group add up, each already a group's sums over some facts (delta rows; finer buckets in a rebuild). */
export function foldSql(s: CounterSum): string {
  switch (s.agg) {
    case 'count':
    case 'sum': return `SUM(${s.column})`;
    case 'min': return `MIN(${s.column})`;
    case 'max': return `MAX(${s.column})`;
    case 'latest': return `(array_agg(${s.column} ORDER BY ${s.byColumn} DESC, ${s.column} DESC))[1]`;
  }
}

/** How a rolled-up group absorbs the same group's folded deltas (`excluded`). */
function mergeSql(c: Counter, s: CounterSum): string {
  const [t, x] = [`${c.table}.${s.column}`, `excluded.${s.column}`];
  switch (s.agg) {
    case 'count': return `${s.column} = ${t} + ${x}`;
    case 'sum': return s.empty !== undefined || !fieldMayBeNull(c.source, s.of) ? `${s.column} = ${t} + ${x}` : `${s.column} = COALESCE(${t} + ${x}, ${t}, ${x})`;
    case 'min': return `${s.column} = LEAST(${t}, ${x})`;
    case 'max': return `${s.column} = GREATEST(${t}, ${x})`;
    case 'latest': return `${s.column} = CASE WHEN excluded.${s.byColumn} >= ${c.table}.${s.byColumn} THEN ${x} ELSE ${t} END`;
  }
}

/**
 * One counter's roll-up: its delta rows moved into its table, folded per group (in key order, so
 * that two roll-ups lock groups in one order). A counter that keeps only its newest buckets is read
 * from its delta rows and is not folded: the older buckets are deleted, following the runs' own
 * instants (not the server's clock), as on SQLite.
 */
function rollupSql(c: Counter): string {
  const keys = c.keys.map((k) => k.column);
  if (c.keep !== undefined) {
    return `DELETE FROM ${c.table}_delta WHERE ${keys[0]} < (SELECT MAX(${keys[0]}) FROM ${c.table}_delta) - ${c.keep};`;
  }
  const cols = [...keys, ...c.sums.map((s) => s.column)];
  const order = keys.map((_, i) => i + 1).join(', ');
  return `WITH moved AS (DELETE FROM ${c.table}_delta RETURNING ${cols.join(', ')})
INSERT INTO ${c.table} (${cols.join(', ')})
  SELECT ${[...keys, ...c.sums.map(foldSql)].join(', ')} FROM moved GROUP BY ${order} ORDER BY ${order}
ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${c.sums.map((s) => mergeSql(c, s)).join(', ')};`;
}

/**
 * Folds every delta row into the rolled-up tables, generated from the description (run under the
 * roll-up advisory lock).
 */
export function pgRollupReadModelsSql(counters: readonly Counter[] = COUNTERS): string {
  return counters.map(rollupSql).join('\n');
}
