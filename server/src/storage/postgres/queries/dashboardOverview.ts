import type { DashboardOverview, DashboardRange, QueueSummary, TaskStatus, TasksOverTimePoint } from '../../../contracts/index.js';
import { TASK_STATUSES } from '../../../contracts/index.js';
import { DAY_MS, HOUR_MS, floorTo, rangeStartMs, round2, successRate } from '../../queries/timeRanges.js';
import { toIso } from '../../time.js';
import type { pgCatchUpBacklog } from './catchUpBacklog.js';
import type { PgCreatedInRange } from './createdInRange.js';
import type { PgQuery } from './PgQuery.js';
import type { PgRunsInRange } from './runsInRange.js';

interface BucketRow {
  b: number;
  total: number;
  completed: number;
  failed: number;
}

const bucketSql = (view: string, key: string) => `
  SELECT ${key} AS b, SUM(n) AS total, COALESCE(SUM(n) FILTER (WHERE status = 'Completed'), 0) AS completed,
         COALESCE(SUM(n) FILTER (WHERE status = 'Failed'), 0) AS failed
    FROM ${view} WHERE ${key} >= $1 GROUP BY ${key}`;

/** The dashboard overview from the read models (counters, creation and run buckets). */
export function pgDashboardOverview(
  q: PgQuery,
  parts: { createdInRange: PgCreatedInRange; runsInRange: PgRunsInRange; catchUpBacklog: ReturnType<typeof pgCatchUpBacklog> },
) {
  const total = async (fromMs: number) => (await parts.createdInRange(fromMs)).reduce((s, g) => s + g.n, 0);

  async function tasksOverTime(range: DashboardRange, nowMs: number): Promise<TasksOverTimePoint[]> {
    const points = (rows: BucketRow[], first: number, count: number, unit: number): TasksOverTimePoint[] => {
      const byBucket = new Map(rows.map((r) => [r.b, r]));
      return Array.from({ length: count }, (_, i) => {
        const r = byBucket.get(first + i);
        return { timestamp: toIso((first + i) * unit), completed: r?.completed ?? 0, failed: r?.failed ?? 0, total: r?.total ?? 0 };
      });
    };
    if (range === 'Today') {
      const first = floorTo(nowMs, HOUR_MS) / HOUR_MS - 23;
      return points(await q<BucketRow>(bucketSql('stat_created_hour_v', 'hour'), [first]), first, 24, HOUR_MS);
    }
    const today = floorTo(nowMs, DAY_MS) / DAY_MS;
    let count = range === 'Week' ? 7 : range === 'Month' ? 30 : 90;
    if (range === 'All') {
      const [row] = await q<{ f: number | null }>(
        `SELECT MIN(day) AS f FROM (SELECT day FROM stat_created_day_v GROUP BY day HAVING SUM(n) > 0) AS days`,
      );
      const f = row?.f ?? null;
      count = f === null ? 1 : Math.min(90, Math.max(1, today - f + 1));
    }
    const first = today - count + 1;
    return points(await q<BucketRow>(bucketSql('stat_created_day_v', 'day'), [first]), first, count, DAY_MS);
  }

  return async function dashboardOverview(range: DashboardRange, nowMs: number): Promise<DashboardOverview> {
    const from = rangeStartMs(range, nowMs);
    const [groups, runTotals, queueStatus, throttled, totalToday, totalWeek, overTime, backlog] = await Promise.all([
      parts.createdInRange(from),
      parts.runsInRange.totals(from),
      q<{ queue: string; status: TaskStatus; n: number }>(`SELECT queue, status, SUM(n) AS n FROM stat_tasks_v GROUP BY queue, status`),
      q<{ queue: string; n: number }>(
        `SELECT queue, COUNT(*) AS n FROM tasks WHERE throttled_until IS NOT NULL AND throttled_until > $1 AND status = 'Queued' GROUP BY queue`,
        [nowMs],
      ),
      total(floorTo(nowMs, DAY_MS)),
      total(nowMs - 7 * DAY_MS),
      tasksOverTime(range, nowMs),
      parts.catchUpBacklog(nowMs),
    ]);
    const statusDistribution: Partial<Record<TaskStatus, number>> = {};
    for (const s of TASK_STATUSES) statusDistribution[s] = 0;
    for (const g of groups) {
      const s = g.status as TaskStatus;
      statusDistribution[s] = (statusDistribution[s] ?? 0) + g.n;
    }
    const completed = statusDistribution.Completed ?? 0;
    const failed = statusDistribution.Failed ?? 0;

    const queues = new Map<string, QueueSummary>();
    const qs = (name: string) => {
      let s = queues.get(name);
      if (!s) {
        s = { queueName: name, pendingCount: 0, inProgressCount: 0, completedCount: 0, failedCount: 0, throttledCount: 0 };
        queues.set(name, s);
      }
      return s;
    };
    for (const r of queueStatus) {
      if (r.n === 0) continue;
      const s = qs(r.queue);
      if (r.status === 'Pending' || r.status === 'Queued' || r.status === 'WaitingQueue') s.pendingCount += r.n;
      else if (r.status === 'InProgress') s.inProgressCount += r.n;
      else if (r.status === 'Completed') s.completedCount += r.n;
      else if (r.status === 'Failed') s.failedCount += r.n;
    }
    let throttledTasks = 0;
    for (const r of throttled) {
      qs(r.queue).throttledCount = r.n;
      throttledTasks += r.n;
    }
    return {
      totalTasksToday: totalToday,
      totalTasksWeek: totalWeek,
      successRate: successRate(completed, failed),
      failedCount: failed,
      avgExecutionTimeMs: runTotals.durCount === 0 ? 0 : round2(runTotals.durSum / runTotals.durCount),
      statusDistribution,
      tasksOverTime: overTime,
      queueSummaries: [...queues.values()].sort((a, b) => a.queueName.localeCompare(b.queueName)),
      throttledTasks,
      catchUpBacklog: backlog,
    };
  };
}
