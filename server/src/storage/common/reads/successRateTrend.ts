import type { SuccessRateTrend, TrendPeriod } from '../../../contracts/index.js';
import { utcTrendWindow, zonedTrendWindow, type OutcomeBucket } from '../trendPoints.js';
import type { ReadDb } from './ReadDb.js';

/**
 * Success-rate trend: outcomes of finished runs by the day they ended (stat_runs_day), or by the
 * viewer's local days (from stat_runs_hour) when a time zone is given.
 */
export function createSuccessRateTrend(db: ReadDb) {
  const { model } = db.dialect;
  const days = `SELECT bucket, SUM(completed) AS completed, SUM(failed) AS failed FROM ${model('stat_runs_day')} WHERE bucket >= ? GROUP BY bucket`;
  const hours = `SELECT bucket, SUM(completed) AS completed, SUM(failed) AS failed FROM ${model('stat_runs_hour')} WHERE bucket >= ? AND bucket < ? GROUP BY bucket`;
  return async function successRateTrend(period: TrendPeriod, nowMs: number, timeZone?: string): Promise<SuccessRateTrend> {
    if (timeZone !== undefined) {
      const w = zonedTrendWindow(period, nowMs, timeZone);
      return w.fold(await db.query<OutcomeBucket>(hours, [w.fromHour, w.toHour]));
    }
    const w = utcTrendWindow(period, nowMs);
    return w.fold(await db.query<OutcomeBucket>(days, [w.firstDay]));
  };
}
