import type { DashboardRange, TaskTypesDistribution } from '../../contracts/index.js';
import type { createCreatedInRange } from './createdInRange.js';
import { rangeStartMs } from './timeRanges.js';
import { zonedRangeStart } from './zonedCalendar.js';

/** Task types distribution: tasks created in the range by full type name. */
export function createTaskTypes(createdInRange: ReturnType<typeof createCreatedInRange>) {
  return function taskTypes(range: DashboardRange, nowMs: number, timeZone?: string): TaskTypesDistribution {
    const out: TaskTypesDistribution = {};
    const groups = createdInRange(timeZone === undefined ? rangeStartMs(range, nowMs) : zonedRangeStart(range, nowMs, timeZone)).sort((a, b) => a.type.localeCompare(b.type));
    for (const g of groups) if (g.n > 0) out[g.type] = (out[g.type] ?? 0) + g.n;
    return out;
  };
}
