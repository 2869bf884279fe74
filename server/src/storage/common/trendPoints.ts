import type { SuccessRatePoint, SuccessRateTrend, TrendPeriod } from '../../contracts/index.js';
import { toIso } from './time.js';
import { DAY_MS, HOUR_MS, ceilTo, floorTo, successRate } from './timeRanges.js';
import { bucketIndex, zonedTrendBounds } from './zonedCalendar.js';

/** Finished-run outcomes of one read-model bucket (a UTC day or an hour). */
export interface OutcomeBucket {
  bucket: number;
  completed: number;
  failed: number;
}

function point(timestampMs: number, a: { completed: number; failed: number }): SuccessRatePoint {
  return {
    timestamp: toIso(timestampMs),
    successRate: successRate(a.completed, a.failed),
    totalTasks: a.completed + a.failed,
    successfulTasks: a.completed,
    failedTasks: a.failed,
  };
}

/**
 * UTC trend: daily points for Last7Days and Last30Days, 7-day points for Last90Days (the last one
 * may be shorter). `firstDay` is the first day bucket the caller reads.
 */
export function utcTrendWindow(period: TrendPeriod, nowMs: number): { firstDay: number; fold(rows: readonly OutcomeBucket[]): SuccessRateTrend } {
  const days = period === 'Last7Days' ? 7 : period === 'Last30Days' ? 30 : 90;
  const step = period === 'Last90Days' ? 7 : 1;
  const today = floorTo(nowMs, DAY_MS) / DAY_MS;
  const firstDay = today - days + 1;
  return {
    firstDay,
    fold(rows) {
      const acc = Array.from({ length: Math.ceil(days / step) }, () => ({ completed: 0, failed: 0 }));
      for (const r of rows) {
        if (r.bucket > today) continue;
        const a = acc[Math.floor((r.bucket - firstDay) / step)]!;
        a.completed += r.completed;
        a.failed += r.failed;
      }
      return { period, dataPoints: acc.map((a, i) => point((firstDay + i * step) * DAY_MS, a)) };
    },
  };
}

/**
 * Trend by the viewer's local days: runs are counted in the local day holding the hour they ended
 * in. The caller reads hour buckets in [fromHour, toHour).
 */
export function zonedTrendWindow(
  period: TrendPeriod,
  nowMs: number,
  timeZone: string,
): { fromHour: number; toHour: number; fold(rows: readonly OutcomeBucket[]): SuccessRateTrend } {
  const bounds = zonedTrendBounds(period, nowMs, timeZone);
  return {
    fromHour: Math.floor(bounds[0]! / HOUR_MS),
    toHour: ceilTo(bounds[bounds.length - 1]!, HOUR_MS) / HOUR_MS,
    fold(rows) {
      const acc = bounds.slice(0, -1).map(() => ({ completed: 0, failed: 0 }));
      for (const r of rows) {
        const a = acc[bucketIndex(bounds, Math.max(bounds[0]!, r.bucket * HOUR_MS))];
        if (!a) continue;
        a.completed += r.completed;
        a.failed += r.failed;
      }
      return { period, dataPoints: acc.map((a, i) => point(bounds[i]!, a)) };
    },
  };
}
