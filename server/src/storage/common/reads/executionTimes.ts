import type { DashboardRange, ExecutionTimesItem } from '../../../contracts/index.js';
import { rangeStartMs, round2 } from '../timeRanges.js';
import { zonedRangeStart } from '../zonedCalendar.js';
import type { RunsInRange } from './runsInRange.js';

/** Execution times by type: measured durations of completed runs ended in the range. */
export function createExecutionTimes(runsInRange: RunsInRange) {
  return async function executionTimes(range: DashboardRange, nowMs: number, timeZone?: string): Promise<ExecutionTimesItem[]> {
    return (await runsInRange.byType(timeZone === undefined ? rangeStartMs(range, nowMs) : zonedRangeStart(range, nowMs, timeZone)))
      .filter((r) => r.durCount > 0)
      .sort((a, b) => a.type.localeCompare(b.type))
      .map((r) => ({
        taskType: r.type,
        averageExecutionTime: round2(r.durSum / r.durCount),
        minExecutionTime: r.durMin ?? 0,
        maxExecutionTime: r.durMax ?? 0,
        taskCount: r.durCount,
      }));
  };
}
