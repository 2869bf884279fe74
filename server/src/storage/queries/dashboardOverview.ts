import type { Database } from 'better-sqlite3';
import type {
  DashboardOverview,
  DashboardRange,
  QueueSummary,
  TaskStatus,
  TasksOverTimePoint,
} from '../../contracts/index.js';
import { TASK_STATUSES } from '../../contracts/index.js';
import { toIso } from '../time.js';
import type { createCatchUpBacklog } from './catchUpBacklog.js';
import type { createCreatedInRange } from './createdInRange.js';
import type { createRunsInRange } from './runsInRange.js';
import { DAY_MS, HOUR_MS, floorTo, rangeStartMs, round2, successRate } from './timeRanges.js';

interface BucketRow {
  b: number;
  total: number;
  completed: number;
  failed: number;
}

/** §2.9 with D11 ranges: read models only (stat_tasks, stat_created_*, stat_runs_*). */
export function createDashboardOverview(
  db: Database,
  parts: {
    createdInRange: ReturnType<typeof createCreatedInRange>;
    runsInRange: ReturnType<typeof createRunsInRange>;
    catchUpBacklog: ReturnType<typeof createCatchUpBacklog>;
  },
) {
  const hourly = db.prepare(`
    SELECT hour AS b, SUM(n) AS total, SUM(CASE WHEN status = 'Completed' THEN n ELSE 0 END) AS completed,
           SUM(CASE WHEN status = 'Failed' THEN n ELSE 0 END) AS failed
      FROM stat_created_hour WHERE hour >= ? GROUP BY hour`);
  const daily = db.prepare(`
    SELECT day AS b, SUM(n) AS total, SUM(CASE WHEN status = 'Completed' THEN n ELSE 0 END) AS completed,
           SUM(CASE WHEN status = 'Failed' THEN n ELSE 0 END) AS failed
      FROM stat_created_day WHERE day >= ? GROUP BY day`);
  const firstDay = db.prepare(`SELECT MIN(day) FROM stat_created_day WHERE n > 0`).pluck();
  const queueStatus = db.prepare(`SELECT queue, status, SUM(n) AS n FROM stat_tasks GROUP BY queue, status`);
  const throttled = db.prepare(
    `SELECT queue, COUNT(*) AS n FROM tasks WHERE throttled_until IS NOT NULL AND throttled_until > ? AND status = 'Queued' GROUP BY queue`,
  );

  const total = (fromMs: number) => parts.createdInRange(fromMs).reduce((s, g) => s + g.n, 0);

  function tasksOverTime(range: DashboardRange, nowMs: number): TasksOverTimePoint[] {
    const points = (rows: BucketRow[], first: number, count: number, unit: number): TasksOverTimePoint[] => {
      const byBucket = new Map(rows.map((r) => [r.b, r]));
      return Array.from({ length: count }, (_, i) => {
        const r = byBucket.get(first + i);
        return {
          timestamp: toIso((first + i) * unit),
          completed: r?.completed ?? 0,
          failed: r?.failed ?? 0,
          total: r?.total ?? 0,
        };
      });
    };
    if (range === 'Today') {
      const first = floorTo(nowMs, HOUR_MS) / HOUR_MS - 23;
      return points(hourly.all(first) as BucketRow[], first, 24, HOUR_MS);
    }
    const today = floorTo(nowMs, DAY_MS) / DAY_MS;
    let count = range === 'Week' ? 7 : range === 'Month' ? 30 : 90;
    if (range === 'All') {
      const f = firstDay.get() as number | null;
      count = f === null ? 1 : Math.min(90, Math.max(1, today - f + 1));
    }
    const first = today - count + 1;
    return points(daily.all(first) as BucketRow[], first, count, DAY_MS);
  }

  return function dashboardOverview(range: DashboardRange, nowMs: number): DashboardOverview {
    const from = rangeStartMs(range, nowMs);
    const statusDistribution: Partial<Record<TaskStatus, number>> = {};
    for (const s of TASK_STATUSES) statusDistribution[s] = 0;
    for (const g of parts.createdInRange(from)) {
      const s = g.status as TaskStatus;
      statusDistribution[s] = (statusDistribution[s] ?? 0) + g.n;
    }
    const completed = statusDistribution.Completed ?? 0;
    const failed = statusDistribution.Failed ?? 0;

    const { durSum, durCount } = parts.runsInRange.totals(from);

    const queues = new Map<string, QueueSummary>();
    const q = (name: string) => {
      let s = queues.get(name);
      if (!s) {
        s = { queueName: name, pendingCount: 0, inProgressCount: 0, completedCount: 0, failedCount: 0, throttledCount: 0 };
        queues.set(name, s);
      }
      return s;
    };
    for (const r of queueStatus.all() as { queue: string; status: TaskStatus; n: number }[]) {
      if (r.n === 0) continue;
      const s = q(r.queue);
      if (r.status === 'Pending' || r.status === 'Queued' || r.status === 'WaitingQueue') s.pendingCount += r.n;
      else if (r.status === 'InProgress') s.inProgressCount += r.n;
      else if (r.status === 'Completed') s.completedCount += r.n;
      else if (r.status === 'Failed') s.failedCount += r.n;
    }
    let throttledTasks = 0;
    for (const r of throttled.all(nowMs) as { queue: string; n: number }[]) {
      q(r.queue).throttledCount = r.n;
      throttledTasks += r.n;
    }

    return {
      totalTasksToday: total(floorTo(nowMs, DAY_MS)),
      totalTasksWeek: total(nowMs - 7 * DAY_MS),
      successRate: successRate(completed, failed),
      failedCount: failed,
      avgExecutionTimeMs: durCount === 0 ? 0 : round2(durSum / durCount),
      statusDistribution,
      tasksOverTime: tasksOverTime(range, nowMs),
      queueSummaries: [...queues.values()].sort((a, b) => a.queueName.localeCompare(b.queueName)),
      throttledTasks,
      catchUpBacklog: parts.catchUpBacklog(nowMs),
    };
  };
}
