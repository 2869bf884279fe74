import type { SuccessRatePoint, SuccessRateTrend, TrendPeriod } from '../../../contracts/index.js';
import { DAY_MS, HOUR_MS, ceilTo, floorTo, successRate } from '../../queries/timeRanges.js';
import { bucketIndex, zonedTrendBounds } from '../../queries/zonedCalendar.js';
import { toIso } from '../../time.js';
import type { PgQuery } from './PgQuery.js';

/** Outcomes of finished runs by the day they ended: daily points for 7 and 30 days, 7-day points for 90. */
export function pgSuccessRateTrend(q: PgQuery) {
  /** Points by the viewer's local days: runs counted in the local day holding the hour they ended in. */
  async function zoned(period: TrendPeriod, nowMs: number, timeZone: string): Promise<SuccessRateTrend> {
    const bounds = zonedTrendBounds(period, nowMs, timeZone);
    const acc = bounds.slice(0, -1).map(() => ({ completed: 0, failed: 0 }));
    const rows = await q<{ hour: number; completed: number; failed: number }>(
      `SELECT bucket AS hour, SUM(completed) AS completed, SUM(failed) AS failed FROM stat_runs_hour_v
        WHERE bucket >= $1 AND bucket < $2 GROUP BY bucket`,
      [Math.floor(bounds[0]! / HOUR_MS), ceilTo(bounds[bounds.length - 1]!, HOUR_MS) / HOUR_MS],
    );
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
  return async function successRateTrend(period: TrendPeriod, nowMs: number, timeZone?: string): Promise<SuccessRateTrend> {
    if (timeZone !== undefined) return zoned(period, nowMs, timeZone);
    const days = period === 'Last7Days' ? 7 : period === 'Last30Days' ? 30 : 90;
    const step = period === 'Last90Days' ? 7 : 1;
    const today = floorTo(nowMs, DAY_MS) / DAY_MS;
    const first = today - days + 1;
    const acc = Array.from({ length: Math.ceil(days / step) }, () => ({ completed: 0, failed: 0 }));
    const rows = await q<{ day: number; completed: number; failed: number }>(
      `SELECT bucket AS day, SUM(completed) AS completed, SUM(failed) AS failed FROM stat_runs_day_v WHERE bucket >= $1 GROUP BY bucket`,
      [first],
    );
    for (const r of rows) {
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
