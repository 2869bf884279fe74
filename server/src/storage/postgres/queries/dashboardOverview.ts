import type { DashboardOverview, DashboardRange, QueueSummary, TaskStatus, TasksOverTimePoint } from '../../../contracts/index.js';
import { TASK_STATUSES } from '../../../contracts/index.js';
import { DAY_MS, HOUR_MS, ceilTo, floorTo, rangeStartMs, round2, successRate } from '../../queries/timeRanges.js';
import { addLocalDays, bucketIndex, startOfLocalDay, zonedWindow, type ZonedWindow } from '../../queries/zonedCalendar.js';
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

const spanSql = (view: string, key: string) => `
  SELECT ${key} AS b, SUM(n) AS total, COALESCE(SUM(n) FILTER (WHERE status = 'Completed'), 0) AS completed,
         COALESCE(SUM(n) FILTER (WHERE status = 'Failed'), 0) AS failed
    FROM ${view} WHERE ${key} >= $1 AND ${key} < $2 GROUP BY ${key}`;

/**
 * The dashboard overview from the read models (counters, creation and run buckets); with a
 * `timeZone`, ranges and chart buckets follow that zone's calendar (same windows as SQLite).
 */
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

  /** Chart buckets of a zoned window, from the hour read model (the day model for n-day buckets). */
  async function zonedOverTime(w: ZonedWindow): Promise<TasksOverTimePoint[]> {
    const { bounds } = w;
    const acc = bounds.slice(0, -1).map(() => ({ completed: 0, failed: 0, total: 0 }));
    const add = (i: number, r: Omit<BucketRow, 'b'>, sign: 1 | -1) => {
      const a = acc[i];
      if (!a) return;
      a.total += sign * r.total;
      a.completed += sign * r.completed;
      a.failed += sign * r.failed;
    };
    const first = bounds[0]!;
    const end = bounds[bounds.length - 1]!;
    const multiDay = !w.hourly && bounds.length > 1 && bounds[1]! - first > 2 * DAY_MS;
    if (multiDay) {
      // n-day buckets of a long All range: UTC days, each counted in the bucket holding its start.
      const rows = await q<BucketRow>(spanSql('stat_created_day_v', 'day'), [Math.floor(first / DAY_MS), ceilTo(end, DAY_MS) / DAY_MS]);
      for (const r of rows) add(Math.max(0, bucketIndex(bounds, Math.max(first, r.b * DAY_MS))), r, 1);
    } else {
      const rows = await q<BucketRow>(spanSql('stat_created_hour_v', 'hour'), [Math.floor(first / HOUR_MS), ceilTo(end, HOUR_MS) / HOUR_MS]);
      for (const r of rows) add(bucketIndex(bounds, r.b * HOUR_MS), r, 1);
      // An edge inside an hour: move the tasks created between the edge and the next full hour.
      for (const edge of bounds) {
        if (edge % HOUR_MS === 0) continue;
        const hourStart = floorTo(edge, HOUR_MS);
        const [moved] = await q<Omit<BucketRow, 'b'>>(
          `SELECT COUNT(*) AS total, COUNT(*) FILTER (WHERE status = 'Completed') AS completed, COUNT(*) FILTER (WHERE status = 'Failed') AS failed
             FROM tasks WHERE created_at >= $1 AND created_at < $2`,
          [edge, hourStart + HOUR_MS],
        );
        if (!moved || moved.total === 0) continue;
        add(bucketIndex(bounds, hourStart), moved, -1);
        add(bucketIndex(bounds, edge), moved, 1);
      }
    }
    return acc.map((a, i) => ({ timestamp: toIso(bounds[i]!), completed: a.completed, failed: a.failed, total: a.total }));
  }

  return async function dashboardOverview(range: DashboardRange, nowMs: number, timeZone?: string): Promise<DashboardOverview> {
    let zoned: ZonedWindow | undefined;
    if (timeZone !== undefined) {
      const [first] = await q<{ m: number | null }>(`SELECT MIN(created_at) AS m FROM tasks`);
      zoned = zonedWindow(range, nowMs, timeZone, first?.m ?? null);
    }
    const from = zoned ? zoned.fromMs : rangeStartMs(range, nowMs);
    const todayStart = timeZone === undefined ? floorTo(nowMs, DAY_MS) : startOfLocalDay(timeZone, nowMs);
    const weekStart = timeZone === undefined ? nowMs - 7 * DAY_MS : addLocalDays(timeZone, todayStart + 12 * HOUR_MS, -6);
    const [groups, runTotals, queueStatus, throttled, totalToday, totalWeek, overTime, backlog] = await Promise.all([
      parts.createdInRange(from),
      parts.runsInRange.totals(from),
      q<{ queue: string; status: TaskStatus; n: number; recurring: number }>(
        `SELECT queue, status, SUM(n) AS n, COALESCE(SUM(n) FILTER (WHERE is_recurring = 1 AND is_occurrence = 0), 0) AS recurring
           FROM stat_tasks_v GROUP BY queue, status`,
      ),
      q<{ queue: string; n: number }>(
        `SELECT queue, COUNT(*) AS n FROM tasks WHERE throttled_until IS NOT NULL AND throttled_until > $1 AND status = 'Queued' GROUP BY queue`,
        [nowMs],
      ),
      total(todayStart),
      total(weekStart),
      zoned ? zonedOverTime(zoned) : tasksOverTime(range, nowMs),
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
        s = { queueName: name, pendingCount: 0, inProgressCount: 0, completedCount: 0, failedCount: 0, throttledCount: 0, recurringWaitingCount: 0 };
        queues.set(name, s);
      }
      return s;
    };
    for (const r of queueStatus) {
      if (r.n === 0) continue;
      const s = qs(r.queue);
      if (r.status === 'Pending' || r.status === 'Queued' || r.status === 'WaitingQueue') {
        s.pendingCount += r.n;
        // A schedule definition or an inline recurring row between runs is counted as pending.
        if (r.status === 'Pending') s.recurringWaitingCount = (s.recurringWaitingCount ?? 0) + r.recurring;
      }
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
      window: {
        timeZone: timeZone ?? 'UTC',
        fromUtc: toIso(from),
        toUtc: toIso(zoned ? zoned.bounds[zoned.bounds.length - 1]! : nowMs),
      },
    };
  };
}
