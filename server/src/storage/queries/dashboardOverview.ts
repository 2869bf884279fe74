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
import { DAY_MS, HOUR_MS, ceilTo, floorTo, rangeStartMs, round2, successRate } from './timeRanges.js';
import { addLocalDays, bucketIndex, startOfLocalDay, zonedWindow, type ZonedWindow } from './zonedCalendar.js';

interface BucketRow {
  b: number;
  total: number;
  completed: number;
  failed: number;
}

/** The dashboard overview of a range: read models only (stat_tasks, stat_created_*, stat_runs_*). */
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
  const hourSpan = db.prepare(`
    SELECT hour AS b, SUM(n) AS total, SUM(CASE WHEN status = 'Completed' THEN n ELSE 0 END) AS completed,
           SUM(CASE WHEN status = 'Failed' THEN n ELSE 0 END) AS failed
      FROM stat_created_hour WHERE hour >= ? AND hour < ? GROUP BY hour`);
  const daySpan = db.prepare(`
    SELECT day AS b, SUM(n) AS total, SUM(CASE WHEN status = 'Completed' THEN n ELSE 0 END) AS completed,
           SUM(CASE WHEN status = 'Failed' THEN n ELSE 0 END) AS failed
      FROM stat_created_day WHERE day >= ? AND day < ? GROUP BY day`);
  // Tasks created in part of an hour (a bucket edge off the hour, in zones such as +05:30).
  const partialHour = db.prepare(`
    SELECT COUNT(*) AS total, COALESCE(SUM(status = 'Completed'), 0) AS completed, COALESCE(SUM(status = 'Failed'), 0) AS failed
      FROM tasks INDEXED BY ix_tasks_created WHERE created_at >= ? AND created_at < ?`);
  const queueStatus = db.prepare(
    `SELECT queue, status, SUM(n) AS n, SUM(CASE WHEN is_recurring = 1 AND is_occurrence = 0 THEN n ELSE 0 END) AS recurring
       FROM stat_tasks GROUP BY queue, status`,
  );
  const throttled = db.prepare(
    `SELECT queue, COUNT(*) AS n FROM tasks WHERE throttled_until IS NOT NULL AND throttled_until > ? AND status = 'Queued' GROUP BY queue`,
  );

  const firstCreated = db.prepare(`SELECT MIN(created_at) FROM tasks`).pluck();
  const firstCreatedMs = () => (firstCreated.get() as number | null) ?? null;
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

  const hoursTotal = db.prepare(`
    SELECT COALESCE(SUM(n), 0) AS total, COALESCE(SUM(CASE WHEN status = 'Completed' THEN n ELSE 0 END), 0) AS completed,
           COALESCE(SUM(CASE WHEN status = 'Failed' THEN n ELSE 0 END), 0) AS failed
      FROM stat_created_hour WHERE hour >= ? AND hour < ?`);
  /** Tasks created in [fromMs, toMs): whole hours from the hour model, partial hours from the created_at index. */
  function createdBetween(fromMs: number, toMs: number): Omit<BucketRow, 'b'> {
    const out = { total: 0, completed: 0, failed: 0 };
    const plus = (r: Omit<BucketRow, 'b'>) => {
      out.total += r.total;
      out.completed += r.completed;
      out.failed += r.failed;
    };
    const h0 = ceilTo(fromMs, HOUR_MS);
    const h1 = floorTo(toMs, HOUR_MS);
    if (h0 > h1) {
      plus(partialHour.get(fromMs, toMs) as Omit<BucketRow, 'b'>);
      return out;
    }
    if (fromMs < h0) plus(partialHour.get(fromMs, h0) as Omit<BucketRow, 'b'>);
    if (h1 > h0) plus(hoursTotal.get(h0 / HOUR_MS, h1 / HOUR_MS) as Omit<BucketRow, 'b'>);
    if (h1 < toMs) plus(partialHour.get(h1, toMs) as Omit<BucketRow, 'b'>);
    return out;
  }

  /** Chart buckets of a zoned window, from the hour read model (the day model for n-day buckets). */
  function zonedOverTime(w: ZonedWindow): TasksOverTimePoint[] {
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
      for (const r of daySpan.all(Math.floor(first / DAY_MS), ceilTo(end, DAY_MS) / DAY_MS) as BucketRow[]) {
        add(Math.max(0, bucketIndex(bounds, Math.max(first, r.b * DAY_MS))), r, 1);
      }
    } else if (!w.hourly) {
      // Daily buckets at local midnights: whole UTC days from the day model, then each edge moved
      // from its nearest UTC midnight to the local one by the tasks created in between (≤ 12 h).
      const anchors = bounds.map((b) => Math.round(b / DAY_MS) * DAY_MS);
      for (const r of daySpan.all(anchors[0]! / DAY_MS, anchors[anchors.length - 1]! / DAY_MS) as BucketRow[]) {
        add(bucketIndex(anchors, r.b * DAY_MS), r, 1);
      }
      bounds.forEach((edge, i) => {
        const anchor = anchors[i]!;
        if (edge === anchor) return;
        const between = createdBetween(Math.min(edge, anchor), Math.max(edge, anchor));
        if (between.total === 0) return;
        // count(before edge) = count(before anchor) ± between: the bucket ending at the edge gains
        // what the one starting there loses.
        const sign = edge > anchor ? 1 : -1;
        add(i - 1, between, sign);
        add(i, between, sign === 1 ? -1 : 1);
      });
    } else {
      for (const r of hourSpan.all(Math.floor(first / HOUR_MS), ceilTo(end, HOUR_MS) / HOUR_MS) as BucketRow[]) {
        add(bucketIndex(bounds, r.b * HOUR_MS), r, 1);
      }
      // An edge inside an hour: move the tasks created between the edge and the next full hour.
      for (const edge of bounds) {
        if (edge % HOUR_MS === 0) continue;
        const hourStart = floorTo(edge, HOUR_MS);
        const moved = partialHour.get(edge, hourStart + HOUR_MS) as Omit<BucketRow, 'b'>;
        if (moved.total === 0) continue;
        add(bucketIndex(bounds, hourStart), moved, -1);
        add(bucketIndex(bounds, edge), moved, 1);
      }
    }
    return acc.map((a, i) => ({ timestamp: toIso(bounds[i]!), completed: a.completed, failed: a.failed, total: a.total }));
  }

  return function dashboardOverview(range: DashboardRange, nowMs: number, timeZone?: string): DashboardOverview {
    const zoned = timeZone === undefined ? undefined : zonedWindow(range, nowMs, timeZone, firstCreatedMs());
    const from = zoned ? zoned.fromMs : rangeStartMs(range, nowMs);
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
        s = { queueName: name, pendingCount: 0, inProgressCount: 0, completedCount: 0, failedCount: 0, throttledCount: 0, recurringWaitingCount: 0 };
        queues.set(name, s);
      }
      return s;
    };
    for (const r of queueStatus.all() as { queue: string; status: TaskStatus; n: number; recurring: number }[]) {
      if (r.n === 0) continue;
      const s = q(r.queue);
      if (r.status === 'Pending' || r.status === 'Queued' || r.status === 'WaitingQueue') {
        s.pendingCount += r.n;
        // A schedule definition or an inline recurring row between runs is counted as pending by the spec.
        if (r.status === 'Pending') s.recurringWaitingCount = (s.recurringWaitingCount ?? 0) + r.recurring;
      }
      else if (r.status === 'InProgress') s.inProgressCount += r.n;
      else if (r.status === 'Completed') s.completedCount += r.n;
      else if (r.status === 'Failed') s.failedCount += r.n;
    }
    let throttledTasks = 0;
    for (const r of throttled.all(nowMs) as { queue: string; n: number }[]) {
      q(r.queue).throttledCount = r.n;
      throttledTasks += r.n;
    }

    const todayStart = timeZone === undefined ? floorTo(nowMs, DAY_MS) : startOfLocalDay(timeZone, nowMs);
    const weekStart = timeZone === undefined ? nowMs - 7 * DAY_MS : addLocalDays(timeZone, todayStart + 12 * HOUR_MS, -6);
    return {
      totalTasksToday: total(todayStart),
      totalTasksWeek: total(weekStart),
      successRate: successRate(completed, failed),
      failedCount: failed,
      avgExecutionTimeMs: durCount === 0 ? 0 : round2(durSum / durCount),
      statusDistribution,
      tasksOverTime: zoned ? zonedOverTime(zoned) : tasksOverTime(range, nowMs),
      queueSummaries: [...queues.values()].sort((a, b) => a.queueName.localeCompare(b.queueName)),
      throttledTasks,
      catchUpBacklog: parts.catchUpBacklog(nowMs),
      window: {
        timeZone: timeZone ?? 'UTC',
        fromUtc: toIso(from),
        toUtc: toIso(zoned ? zoned.bounds[zoned.bounds.length - 1]! : nowMs),
      },
    };
  };
}
