import type { DashboardRange, ExecutionTimesItem } from '../../contracts/index.js';
import type { createRunsInRange } from './runsInRange.js';
import { rangeStartMs, round2 } from './timeRanges.js';

/** §4.11 execution times by type: measured durations of completed runs ended in the range. */
export function createExecutionTimes(runsInRange: ReturnType<typeof createRunsInRange>) {
  return function executionTimes(range: DashboardRange, nowMs: number): ExecutionTimesItem[] {
    const byType = new Map<string, { sum: number; count: number; min: number; max: number }>();
    for (const r of runsInRange(rangeStartMs(range, nowMs))) {
      if (r.durCount === 0) continue;
      const t = byType.get(r.type) ?? { sum: 0, count: 0, min: Infinity, max: -Infinity };
      t.sum += r.durSum;
      t.count += r.durCount;
      if (r.durMin !== null) t.min = Math.min(t.min, r.durMin);
      if (r.durMax !== null) t.max = Math.max(t.max, r.durMax);
      byType.set(r.type, t);
    }
    return [...byType.entries()]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([taskType, t]) => ({
        taskType,
        averageExecutionTime: round2(t.sum / t.count),
        minExecutionTime: Number.isFinite(t.min) ? t.min : 0,
        maxExecutionTime: Number.isFinite(t.max) ? t.max : 0,
        taskCount: t.count,
      }));
  };
}
