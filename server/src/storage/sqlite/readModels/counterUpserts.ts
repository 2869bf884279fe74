import type { Database } from 'better-sqlite3';
import { fieldMayBeNull, type Counter, type CounterSum } from '../../common/readModels/counters.js';
import { inChunks, rows } from './chunkedStatements.js';
import type { CounterKeeper } from './counterKeeper.js';

/** How a stored value `c` absorbs the value of the same group from a transaction (`excluded.c`). */
function merge(s: CounterSum, counter: Counter): string {
  const c = s.column;
  const ifBoth = (both: string) => `CASE WHEN excluded.${c} IS NULL THEN ${c} WHEN ${c} IS NULL THEN excluded.${c} ELSE ${both} END`;
  switch (s.agg) {
    case 'count': return `${c} = ${c} + excluded.${c}`;
    case 'sum': return s.empty !== undefined || !fieldMayBeNull(counter.source, s.of) ? `${c} = ${c} + excluded.${c}` : `${c} = ${ifBoth(`${c} + excluded.${c}`)}`;
    case 'min': return `${c} = ${ifBoth(`MIN(${c}, excluded.${c})`)}`;
    case 'max': return `${c} = ${ifBoth(`MAX(${c}, excluded.${c})`)}`;
    case 'latest': {
      // Compared with the stored `by` before this statement changes it (SET reads the old row).
      if (!counter.sums.some((o) => o.column === s.byColumn)) throw new Error(`counter ${counter.table}: ${c} is the latest by ${s.byColumn}, which it does not keep`);
      return `${c} = CASE WHEN excluded.${s.byColumn} >= ${s.byColumn} OR ${s.byColumn} IS NULL THEN excluded.${c} ELSE ${c} END`;
    }
  }
}

/** The upsert of `n` groups of `counter` into its table. */
export function upsertSql(counter: Counter, n = 1): string {
  const keys = counter.keys.map((k) => k.column);
  const cols = [...keys, ...counter.sums.map((s) => s.column)];
  return `INSERT INTO ${counter.table} (${cols.join(', ')}) VALUES ${rows(n, `(${cols.map(() => '?').join(', ')})`)}
    ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${counter.sums.map((s) => merge(s, counter)).join(', ')}`;
}

/**
 * Writes what `keeper` counted for each counter of `counters` into its table, inside the caller's
 * transaction, many groups per statement; a counter that keeps only its newest buckets then drops
 * the older ones.
 */
export function writeCounters(db: Database, counters: readonly Counter[], keeper: CounterKeeper): void {
  counters.forEach((c, i) => {
    const groups = keeper.rows(i);
    if (groups.length === 0) return;
    inChunks(db, `counter:${c.table}`, groups, (n) => upsertSql(c, n), (r, out) => {
      for (const v of r) out.push(v);
    });
    const newest = keeper.newest(i);
    if (c.keep !== undefined && newest !== null) {
      inChunks(db, `counter-keep:${c.table}`, [newest - c.keep], () => `DELETE FROM ${c.table} WHERE ${c.keys[0]!.column} < ?`, (v, out) => out.push(v));
    }
  });
}
