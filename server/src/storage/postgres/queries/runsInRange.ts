import type { RunGroup, RunTotals } from '../../queries/runsInRange.js';
import { DAY_MS, HOUR_MS, ceilTo, floorTo } from '../../queries/timeRanges.js';
import type { PgQuery } from './PgQuery.js';

const AGG = `COALESCE(SUM(completed), 0) AS completed, COALESCE(SUM(failed), 0) AS failed, COALESCE(SUM(dur_sum), 0) AS "durSum",
  COALESCE(SUM(dur_count), 0) AS "durCount", MIN(dur_min) AS "durMin", MAX(dur_max) AS "durMax"`;
const SINCE = `(SELECT * FROM stat_runs_hour_v WHERE bucket >= $1 AND bucket < $2
    UNION ALL SELECT * FROM stat_runs_day_v WHERE bucket >= $3) AS runs`;

/** Finished runs whose end falls in the range (the hour containing the start included): totals, or by type. */
export function pgRunsInRange(q: PgQuery) {
  const bounds = (fromMs: number) => {
    const h0 = floorTo(fromMs, HOUR_MS);
    const d1 = ceilTo(h0, DAY_MS);
    return [h0 / HOUR_MS, d1 / HOUR_MS, d1 / DAY_MS];
  };
  return {
    async totals(fromMs: number | null): Promise<RunTotals> {
      const rows =
        fromMs === null
          ? await q<RunTotals>(`SELECT ${AGG} FROM stat_runs_day_v`)
          : await q<RunTotals>(`SELECT ${AGG} FROM ${SINCE}`, bounds(fromMs));
      return rows[0]!;
    },
    async byType(fromMs: number | null): Promise<RunGroup[]> {
      return fromMs === null
        ? q<RunGroup>(`SELECT type, ${AGG} FROM stat_runs_day_v GROUP BY type`)
        : q<RunGroup>(`SELECT type, ${AGG} FROM ${SINCE} GROUP BY type`, bounds(fromMs));
    },
  };
}
export type PgRunsInRange = ReturnType<typeof pgRunsInRange>;
