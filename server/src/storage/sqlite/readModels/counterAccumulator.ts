import type { Database } from 'better-sqlite3';
import type { Counter, CounterSum } from '../../common/readModels/counters.js';
import { preparedStatement } from '../schedules/preparedStatement.js';

/** One fact of a counter's source, by field name (SourceFields in common/readModels/counters.ts). */
export type CounterFact = Readonly<Record<string, string | number | null>>;

type Value = string | number | null;

/** The bucket SQL computes for `ms / size`: integer division for integers (as the rebuild queries do). */
export function bucketOf(ms: number, size: number): number {
  return Number.isInteger(ms) ? Math.trunc(ms / size) : ms / size;
}

/** One group's key values and aggregated values (by the order of the counter's keys and sums; `latest` keeps its `by` beside). */
interface Group {
  keys: Value[];
  sums: Value[];
  by: Value[];
}

const less = (a: Value, b: Value) => (a as number | string) < (b as number | string);

/**
 * A counter of the description kept from code: the facts of one write transaction added up per
 * group, as PostgreSQL's generated SQL aggregates them (SUM, COUNT, MIN, MAX with a FILTER on the
 * outcome; latest by `by`), then upserted into the counter's table (`apply`). SQLite keeps its
 * built-in counters in the hand-shaped maps of ReadModelDeltas (same results, checked against
 * this by a test); any other counter of the description is kept by one of these.
 */
export class CounterAccumulator {
  readonly groups = new Map<string, Group>();

  constructor(readonly counter: Counter) {}

  add(fact: CounterFact): void {
    const c = this.counter;
    const f = fact;
    const keys = c.keys.map((k) => {
      const v = f[k.from ?? k.column] ?? null;
      return k.bucketMs === undefined || v === null ? v : bucketOf(v as number, k.bucketMs);
    });
    const id = keys.join('\u0000');
    let g = this.groups.get(id);
    if (g === undefined) this.groups.set(id, (g = { keys, sums: c.sums.map(initial), by: c.sums.map(() => null) }));
    c.sums.forEach((s, i) => {
      if (s.outcome !== undefined && f['last_outcome'] !== s.outcome) return;
      const of = s.of;
      const v = of === undefined ? 1 : (f[of] ?? null);
      if (v === null) return;
      const was = g.sums[i]!;
      switch (s.agg) {
        case 'sum': g.sums[i] = (was as number | null ?? 0) + (v as number); break;
        case 'count': g.sums[i] = (was as number) + 1; break;
        case 'min': if (was === null || less(v, was)) g.sums[i] = v; break;
        case 'max': if (was === null || less(was, v)) g.sums[i] = v; break;
        case 'latest': {
          const by = f[s.by] ?? null;
          const best = g.by[i]!;
          if (best === null || less(best, by) || (by === best && less(was, v))) {
            g.sums[i] = v;
            g.by[i] = by;
          }
          break;
        }
      }
    });
  }

  /** The groups to write: every one, but those whose sums all net to zero for a netted counter. */
  rows(): Value[][] {
    const out: Value[][] = [];
    for (const g of this.groups.values()) {
      if (this.counter.netted && g.sums.every((v) => v === 0 || v === null)) continue;
      out.push([...g.keys, ...g.sums]);
    }
    return out;
  }

  /** Upserts the groups into the counter's table, inside the caller's transaction (one statement per group). */
  apply(db: Database): void {
    const rows = this.rows();
    if (rows.length === 0) return;
    const st = preparedStatement(db, upsertSql(this.counter));
    for (const r of rows) st.run(r);
  }
}

function initial(s: CounterSum): Value {
  if (s.agg === 'count') return 0;
  if (s.agg === 'sum' && s.empty !== undefined) return s.empty;
  return null;
}

/** How a stored value `c` absorbs the value of the same group from a transaction (`excluded.c`). */
function merge(s: CounterSum, counter: Counter): string {
  const c = s.column;
  const ifBoth = (both: string) => `CASE WHEN excluded.${c} IS NULL THEN ${c} WHEN ${c} IS NULL THEN excluded.${c} ELSE ${both} END`;
  switch (s.agg) {
    case 'count': return `${c} = ${c} + excluded.${c}`;
    case 'sum': return s.empty !== undefined ? `${c} = ${c} + excluded.${c}` : `${c} = ${ifBoth(`${c} + excluded.${c}`)}`;
    case 'min': return `${c} = ${ifBoth(`MIN(${c}, excluded.${c})`)}`;
    case 'max': return `${c} = ${ifBoth(`MAX(${c}, excluded.${c})`)}`;
    case 'latest': {
      // Compared with the stored `by` before this statement changes it (SET reads the old row).
      if (!counter.sums.some((o) => o.column === s.byColumn)) throw new Error(`counter ${counter.table}: ${c} is the latest by ${s.byColumn}, which it does not keep`);
      return `${c} = CASE WHEN excluded.${s.byColumn} >= ${s.byColumn} OR ${s.byColumn} IS NULL THEN excluded.${c} ELSE ${c} END`;
    }
  }
}

/** The upsert of one group of `counter` into its table. */
export function upsertSql(counter: Counter): string {
  const keys = counter.keys.map((k) => k.column);
  const cols = [...keys, ...counter.sums.map((s) => s.column)];
  return `INSERT INTO ${counter.table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})
    ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${counter.sums.map((s) => merge(s, counter)).join(', ')}`;
}
