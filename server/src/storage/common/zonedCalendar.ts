import type { DashboardRange, TrendPeriod } from '../../contracts/index.js';
import { isKnownTimeZone, wallFields, zoneOffsetMs } from '../../time/wallTime.js';
import { DAY_MS, HOUR_MS } from './timeRanges.js';

/**
 * Calendar arithmetic in a viewer's IANA time zone, with the runtime's own zone data (Intl):
 * local midnights as UTC instants, and the windows and buckets of the overview and statistics
 * when a request names a `timeZone`. Pure (no storage): every MonitoringStore implementation
 * uses the same windows.
 */

/** True when the runtime knows the zone (IANA name such as "America/Los_Angeles", or "UTC"). */
export function isKnownZone(timeZone: string): boolean {
  return timeZone.length > 0 && timeZone.length <= 64 && isKnownTimeZone(timeZone);
}

/** The instant of a local wall time (a time skipped by a DST jump resolves to the instant after the gap). */
function localToUtc(timeZone: string, year: number, month: number, day: number): number {
  const wall = Date.UTC(year, month - 1, day);
  let t = wall - zoneOffsetMs(timeZone, wall);
  t = wall - zoneOffsetMs(timeZone, t);
  return t;
}

/** The local midnight starting the viewer's day that contains `ms`. */
export function startOfLocalDay(timeZone: string, ms: number): number {
  const p = wallFields(timeZone, ms);
  return localToUtc(timeZone, p.year, p.month, p.day);
}

/** The local midnight `days` calendar days after the local day containing `ms` (negative: before). */
export function addLocalDays(timeZone: string, ms: number, days: number): number {
  const p = wallFields(timeZone, ms);
  const d = new Date(Date.UTC(p.year, p.month - 1, p.day + days));
  return localToUtc(timeZone, d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
}

/** The window and chart buckets of one overview response in a viewer's zone. */
export interface ZonedWindow {
  timeZone: string;
  /** Start of the window (a local midnight), or null for All (no lower bound). */
  fromMs: number | null;
  /** Bucket starts, ascending, followed by the end of the last bucket (length = buckets + 1). */
  bounds: number[];
  /** Hourly buckets (Today) or daily / n-day buckets. */
  hourly: boolean;
}

/**
 * Windows by calendar, in the viewer's zone: Today = since local midnight (hourly buckets over
 * the whole local day); Week = the last 7 local days including today; Month = the last 30;
 * All = no lower bound, daily buckets from the first local day with data, widened to n-day
 * buckets when that would exceed 90 buckets. Every bucket lies inside the window, and the
 * window reaches to the end of today, so distribution and chart count the same tasks.
 */
export function zonedWindow(range: DashboardRange, nowMs: number, timeZone: string, firstDataMs: number | null): ZonedWindow {
  const today = startOfLocalDay(timeZone, nowMs);
  const tomorrow = addLocalDays(timeZone, today + 12 * HOUR_MS, 1);
  if (range === 'Today') {
    const bounds: number[] = [];
    for (let t = today; t < tomorrow; t += HOUR_MS) bounds.push(t);
    bounds.push(tomorrow);
    return { timeZone, fromMs: today, bounds, hourly: true };
  }
  if (range === 'Week' || range === 'Month') {
    const days = range === 'Week' ? 7 : 30;
    const bounds = Array.from({ length: days + 1 }, (_, i) => addLocalDays(timeZone, today + 12 * HOUR_MS, i - days + 1));
    return { timeZone, fromMs: bounds[0]!, bounds, hourly: false };
  }
  const first = firstDataMs === null || firstDataMs > nowMs ? today : startOfLocalDay(timeZone, firstDataMs);
  const span = Math.max(1, Math.round((today - first) / DAY_MS) + 1);
  const step = Math.ceil(span / 90);
  const count = Math.ceil(span / step);
  // The last bucket ends with today; the first may start before the first day with data.
  const bounds = Array.from({ length: count + 1 }, (_, i) => addLocalDays(timeZone, today + 12 * HOUR_MS, 1 - (count - i) * step));
  return { timeZone, fromMs: null, bounds, hourly: false };
}

/** Start of a range in the viewer's calendar (null for All). */
export function zonedRangeStart(range: DashboardRange, nowMs: number, timeZone: string): number | null {
  const today = startOfLocalDay(timeZone, nowMs);
  switch (range) {
    case 'Today':
      return today;
    case 'Week':
      return addLocalDays(timeZone, today + 12 * HOUR_MS, -6);
    case 'Month':
      return addLocalDays(timeZone, today + 12 * HOUR_MS, -29);
    case 'All':
      return null;
  }
}

/** Trend points by local day (7-day points for Last90Days), each [bounds[i], bounds[i+1]). */
export function zonedTrendBounds(period: TrendPeriod, nowMs: number, timeZone: string): number[] {
  const days = period === 'Last7Days' ? 7 : period === 'Last30Days' ? 30 : 90;
  const step = period === 'Last90Days' ? 7 : 1;
  const today = startOfLocalDay(timeZone, nowMs);
  const noon = today + 12 * HOUR_MS;
  const bounds: number[] = [];
  for (let d = -(days - 1); d <= 0; d += step) bounds.push(addLocalDays(timeZone, noon, d));
  bounds.push(addLocalDays(timeZone, noon, 1));
  return bounds;
}

/** Index of the bucket [bounds[i], bounds[i+1]) holding `ms`, or -1 outside all buckets. */
export function bucketIndex(bounds: readonly number[], ms: number): number {
  if (ms < bounds[0]! || ms >= bounds[bounds.length - 1]!) return -1;
  let lo = 0;
  let hi = bounds.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (bounds[mid]! <= ms) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
