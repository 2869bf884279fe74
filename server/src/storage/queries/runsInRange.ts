import type { Database } from 'better-sqlite3';
import { DAY_MS, HOUR_MS, ceilTo, floorTo } from './timeRanges.js';

export interface RunTotals {
  completed: number;
  failed: number;
  durSum: number;
  durCount: number;
  durMin: number | null;
  durMax: number | null;
}
export interface RunGroup extends RunTotals {
  type: string;
}

const AGG = `COALESCE(SUM(completed), 0) AS completed, COALESCE(SUM(failed), 0) AS failed, COALESCE(SUM(dur_sum), 0) AS durSum,
  COALESCE(SUM(dur_count), 0) AS durCount, MIN(dur_min) AS durMin, MAX(dur_max) AS durMax`;

/**
 * Finished runs whose end falls in the range, from the run buckets (hour granularity at the
 * start of the range: the hour containing the start is included): totals, or by type.
 */
export function createRunsInRange(db: Database) {
  const sinceSource = `(SELECT * FROM stat_runs_hour WHERE bucket >= @h0 AND bucket < @d1h
      UNION ALL SELECT * FROM stat_runs_day WHERE bucket >= @d1d)`;
  const totalsAll = db.prepare(`SELECT ${AGG} FROM stat_runs_day`);
  const totalsSince = db.prepare(`SELECT ${AGG} FROM ${sinceSource}`);
  const byTypeAll = db.prepare(`SELECT type, ${AGG} FROM stat_runs_day GROUP BY type`);
  const byTypeSince = db.prepare(`SELECT type, ${AGG} FROM ${sinceSource} GROUP BY type`);
  const bounds = (fromMs: number) => {
    const h0 = floorTo(fromMs, HOUR_MS);
    const d1 = ceilTo(h0, DAY_MS);
    return { h0: h0 / HOUR_MS, d1h: d1 / HOUR_MS, d1d: d1 / DAY_MS };
  };
  return {
    totals(fromMs: number | null): RunTotals {
      return (fromMs === null ? totalsAll.get() : totalsSince.get(bounds(fromMs))) as RunTotals;
    },
    byType(fromMs: number | null): RunGroup[] {
      return (fromMs === null ? byTypeAll.all() : byTypeSince.all(bounds(fromMs))) as RunGroup[];
    },
  };
}
