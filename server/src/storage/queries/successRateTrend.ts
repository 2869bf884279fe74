import type { Database } from 'better-sqlite3';
import type { SuccessRatePoint, SuccessRateTrend, TrendPeriod } from '../../contracts/index.js';
import { toIso } from '../time.js';
import { DAY_MS, HOUR_MS, ceilTo, floorTo, successRate } from './timeRanges.js';
import { bucketIndex, zonedTrendBounds } from './zonedCalendar.js';

/**
 * Success-rate trend: outcomes of finished runs by the day they ended (stat_runs_day): daily points
 * for Last7Days and Last30Days, 7-day points for Last90Days (the last one may be shorter).
 */
export function createSuccessRateTrend(db: Database) {
  const st = db.prepare(
    `SELECT bucket AS day, SUM(completed) AS completed, SUM(failed) AS failed FROM stat_runs_day WHERE bucket >= ? GROUP BY bucket`,
  );
  const hours = db.prepare(
    `SELECT bucket AS hour, SUM(completed) AS completed, SUM(failed) AS failed FROM stat_runs_hour WHERE bucket >= ? AND bucket < ? GROUP BY bucket`,
  );
  /** Points by the viewer's local days: runs counted in the local day holding the hour they ended in. */
  function zoned(period: TrendPeriod, nowMs: number, timeZone: string): SuccessRateTrend {
    const bounds = zonedTrendBounds(period, nowMs, timeZone);
    const acc = bounds.slice(0, -1).map(() => ({ completed: 0, failed: 0 }));
    const rows = hours.all(Math.floor(bounds[0]! / HOUR_MS), ceilTo(bounds[bounds.length - 1]!, HOUR_MS) / HOUR_MS) as {
      hour: number;
      completed: number;
      failed: number;
    }[];
    for (const r of rows) {
      const a = acc[bucketIndex(bounds, Math.max(bounds[0]!, r.hour * HOUR_MS))];
      if (!a) continue;
      a.completed += r.completed;
      a.failed += r.failed;
    }
    return {
      period,
      dataPoints: acc.map((a, i) => ({
        timestamp: toIso(bounds[i]!),
        successRate: successRate(a.completed, a.failed),
        totalTasks: a.completed + a.failed,
        successfulTasks: a.completed,
        failedTasks: a.failed,
      })),
    };
  }
  return function successRateTrend(period: TrendPeriod, nowMs: number, timeZone?: string): SuccessRateTrend {
    if (timeZone !== undefined) return zoned(period, nowMs, timeZone);
    const days = period === 'Last7Days' ? 7 : period === 'Last30Days' ? 30 : 90;
    const step = period === 'Last90Days' ? 7 : 1;
    const today = floorTo(nowMs, DAY_MS) / DAY_MS;
    const first = today - days + 1;
    const points = Math.ceil(days / step);
    const acc = Array.from({ length: points }, () => ({ completed: 0, failed: 0 }));
    for (const r of st.all(first) as { day: number; completed: number; failed: number }[]) {
      if (r.day > today) continue;
      const a = acc[Math.floor((r.day - first) / step)]!;
      a.completed += r.completed;
      a.failed += r.failed;
    }
    const dataPoints = acc.map(
      (a, i): SuccessRatePoint => ({
        timestamp: toIso((first + i * step) * DAY_MS),
        successRate: successRate(a.completed, a.failed),
        totalTasks: a.completed + a.failed,
        successfulTasks: a.completed,
        failedTasks: a.failed,
      }),
    );
    return { period, dataPoints };
  };
}
