import { DAY_MS, HOUR_MS, ceilTo, floorTo } from '../timeRanges.js';
import { queryOne, type ReadDb } from './ReadDb.js';

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

const AGG = `COALESCE(SUM(completed), 0) AS completed, COALESCE(SUM(failed), 0) AS failed, COALESCE(SUM(dur_sum), 0) AS "durSum",
  COALESCE(SUM(dur_count), 0) AS "durCount", MIN(dur_min) AS "durMin", MAX(dur_max) AS "durMax"`;

/**
 * Finished runs whose end falls in the range, from the run buckets (hour granularity at the
 * start of the range: the hour containing the start is included): totals, or by type.
 */
export function createRunsInRange(db: ReadDb) {
  const { model } = db.dialect;
  const since = `(SELECT * FROM ${model('stat_runs_hour')} WHERE bucket >= ? AND bucket < ?
      UNION ALL SELECT * FROM ${model('stat_runs_day')} WHERE bucket >= ?) AS runs`;
  const bounds = (fromMs: number) => {
    const h0 = floorTo(fromMs, HOUR_MS);
    const d1 = ceilTo(h0, DAY_MS);
    return [h0 / HOUR_MS, d1 / HOUR_MS, d1 / DAY_MS];
  };
  return {
    totals(fromMs: number | null): Promise<RunTotals> {
      return fromMs === null
        ? queryOne<RunTotals>(db, `SELECT ${AGG} FROM ${model('stat_runs_day')}`)
        : queryOne<RunTotals>(db, `SELECT ${AGG} FROM ${since}`, bounds(fromMs));
    },
    byType(fromMs: number | null): Promise<RunGroup[]> {
      return fromMs === null
        ? db.query<RunGroup>(`SELECT type, ${AGG} FROM ${model('stat_runs_day')} GROUP BY type`)
        : db.query<RunGroup>(`SELECT type, ${AGG} FROM ${since} GROUP BY type`, bounds(fromMs));
    },
  };
}
export type RunsInRange = ReturnType<typeof createRunsInRange>;
