import type { DashboardRange } from '../../contracts/index.js';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export const floorTo = (ms: number, unit: number) => Math.floor(ms / unit) * unit;
export const ceilTo = (ms: number, unit: number) => Math.ceil(ms / unit) * unit;

/** Dashboard ranges: Today = since 00:00 UTC; Week = last 7×24 h; Month = last 30×24 h; All = no bound. */
export function rangeStartMs(range: DashboardRange, nowMs: number): number | null {
  switch (range) {
    case 'Today':
      return floorTo(nowMs, DAY_MS);
    case 'Week':
      return nowMs - 7 * DAY_MS;
    case 'Month':
      return nowMs - 30 * DAY_MS;
    case 'All':
      return null;
  }
}

export const round2 = (n: number) => Math.round(n * 100) / 100;
/** Success rate: completed / (completed + failed) × 100, 2 decimals, 0 when nothing finished. */
export const successRate = (completed: number, failed: number) =>
  completed + failed === 0 ? 0 : round2((completed / (completed + failed)) * 100);
