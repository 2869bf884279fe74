import type { Database } from 'better-sqlite3';
import type { SuccessRatePoint, SuccessRateTrend, TrendPeriod } from '../../contracts/index.js';
import { toIso } from '../time.js';
import { DAY_MS, floorTo, successRate } from './timeRanges.js';

/**
 * §4.11 / D11: outcomes of finished runs by the day they ended (stat_runs_day): daily points
 * for Last7Days and Last30Days, 7-day points for Last90Days (the last one may be shorter).
 */
export function createSuccessRateTrend(db: Database) {
  const st = db.prepare(
    `SELECT bucket AS day, SUM(completed) AS completed, SUM(failed) AS failed FROM stat_runs_day WHERE bucket >= ? GROUP BY bucket`,
  );
  return function successRateTrend(period: TrendPeriod, nowMs: number): SuccessRateTrend {
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
