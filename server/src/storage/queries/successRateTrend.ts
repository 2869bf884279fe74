import type { Database } from 'better-sqlite3';
import type { SuccessRateTrend, TrendPeriod } from '../../contracts/index.js';
import { utcTrendWindow, zonedTrendWindow, type OutcomeBucket } from './trendPoints.js';

/**
 * Success-rate trend: outcomes of finished runs by the day they ended (stat_runs_day), or by the
 * viewer's local days (from stat_runs_hour) when a time zone is given.
 */
export function createSuccessRateTrend(db: Database) {
  const days = db.prepare(
    `SELECT bucket, SUM(completed) AS completed, SUM(failed) AS failed FROM stat_runs_day WHERE bucket >= ? GROUP BY bucket`,
  );
  const hours = db.prepare(
    `SELECT bucket, SUM(completed) AS completed, SUM(failed) AS failed FROM stat_runs_hour WHERE bucket >= ? AND bucket < ? GROUP BY bucket`,
  );
  return function successRateTrend(period: TrendPeriod, nowMs: number, timeZone?: string): SuccessRateTrend {
    if (timeZone !== undefined) {
      const w = zonedTrendWindow(period, nowMs, timeZone);
      return w.fold(hours.all(w.fromHour, w.toHour) as OutcomeBucket[]);
    }
    const w = utcTrendWindow(period, nowMs);
    return w.fold(days.all(w.firstDay) as OutcomeBucket[]);
  };
}
