import type { SuccessRateTrend, TrendPeriod } from '../../../contracts/index.js';
import { utcTrendWindow, zonedTrendWindow, type OutcomeBucket } from '../../queries/trendPoints.js';
import type { PgQuery } from './PgQuery.js';

/** Outcomes of finished runs by the day they ended, or by the viewer's local days when a zone is given. */
export function pgSuccessRateTrend(q: PgQuery) {
  return async function successRateTrend(period: TrendPeriod, nowMs: number, timeZone?: string): Promise<SuccessRateTrend> {
    if (timeZone !== undefined) {
      const w = zonedTrendWindow(period, nowMs, timeZone);
      return w.fold(
        await q<OutcomeBucket>(
          `SELECT bucket, SUM(completed) AS completed, SUM(failed) AS failed FROM stat_runs_hour_v
            WHERE bucket >= $1 AND bucket < $2 GROUP BY bucket`,
          [w.fromHour, w.toHour],
        ),
      );
    }
    const w = utcTrendWindow(period, nowMs);
    return w.fold(
      await q<OutcomeBucket>(
        `SELECT bucket, SUM(completed) AS completed, SUM(failed) AS failed FROM stat_runs_day_v WHERE bucket >= $1 GROUP BY bucket`,
        [w.firstDay],
      ),
    );
  };
}
