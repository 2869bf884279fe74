import type { Database } from 'better-sqlite3';
import { DAY_MS, HOUR_MS, ceilTo, floorTo } from './timeRanges.js';

export interface RunGroup {
  type: string;
  queue: string;
  completed: number;
  failed: number;
  durSum: number;
  durCount: number;
  durMin: number | null;
  durMax: number | null;
}

const AGG = `type, queue, SUM(completed) AS completed, SUM(failed) AS failed, SUM(dur_sum) AS durSum,
  SUM(dur_count) AS durCount, MIN(dur_min) AS durMin, MAX(dur_max) AS durMax`;

/**
 * Finished runs whose end falls in the range, by type and queue, from the run buckets
 * (hour granularity at the start of the range: the hour containing the start is included).
 */
export function createRunsInRange(db: Database) {
  const all = db.prepare(`SELECT ${AGG} FROM stat_runs_day GROUP BY type, queue`);
  const since = db.prepare(`
    SELECT ${AGG} FROM (
      SELECT * FROM stat_runs_hour WHERE bucket >= @h0 AND bucket < @d1h
      UNION ALL SELECT * FROM stat_runs_day WHERE bucket >= @d1d
    ) GROUP BY type, queue`);
  return function runsInRange(fromMs: number | null): RunGroup[] {
    if (fromMs === null) return all.all() as RunGroup[];
    const h0 = floorTo(fromMs, HOUR_MS);
    const d1 = ceilTo(h0, DAY_MS);
    return since.all({ h0: h0 / HOUR_MS, d1h: d1 / HOUR_MS, d1d: d1 / DAY_MS }) as RunGroup[];
  };
}
