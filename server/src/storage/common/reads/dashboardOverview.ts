import type {
  DashboardOverview,
  DashboardRange,
  QueueSummary,
  TaskStatus,
  TasksOverTimePoint,
} from '../../../contracts/index.js';
import { TASK_STATUSES } from '../../../contracts/index.js';
import { toIso } from '../time.js';
import { DAY_MS, HOUR_MS, ceilTo, floorTo, rangeStartMs, round2, successRate } from '../timeRanges.js';
import { addLocalDays, bucketIndex, startOfLocalDay, zonedWindow, type ZonedWindow } from '../zonedCalendar.js';
import type { createCatchUpBacklog } from './catchUpBacklog.js';
import type { CreatedInRange } from './createdInRange.js';
import { pendingOccurrenceReads, type CreatedSpan } from './pendingOccurrenceReads.js';
import { queryOne, type ReadDb } from './ReadDb.js';
import { createReservedCount } from './reservedCount.js';
import type { RunsInRange } from './runsInRange.js';

interface BucketRow {
  b: number;
  total: number;
  completed: number;
  failed: number;
}

/**
 * The dashboard overview of a range: read models only (stat_tasks, stat_created_*, stat_runs_*);
 * with a `timeZone`, ranges and chart buckets follow that zone's calendar.
 */
export function createDashboardOverview(
  db: ReadDb,
  parts: {
    createdInRange: CreatedInRange;
    runsInRange: RunsInRange;
    catchUpBacklog: ReturnType<typeof createCatchUpBacklog>;
  },
) {
  const { model, sumWhere, indexedBy } = db.dialect;
  const outcomes = `SUM(n) AS total, COALESCE(${sumWhere('n', "status = 'Completed'")}, 0) AS completed,
           COALESCE(${sumWhere('n', "status = 'Failed'")}, 0) AS failed`;
  const hourly = `SELECT hour AS b, ${outcomes} FROM ${model('stat_created_hour')} WHERE hour >= ? GROUP BY hour`;
  const daily = `SELECT day AS b, ${outcomes} FROM ${model('stat_created_day')} WHERE day >= ? GROUP BY day`;
  // The first day with tasks: days in key order, stopping at the first (a MIN over all the groups
  // would sum every day of the model first).
  const firstDay = `SELECT day AS f FROM ${model('stat_created_day')} GROUP BY day HAVING SUM(n) > 0 ORDER BY day LIMIT 1`;
  const hourSpan = `SELECT hour AS b, ${outcomes} FROM ${model('stat_created_hour')} WHERE hour >= ? AND hour < ? GROUP BY hour`;
  const daySpan = `SELECT day AS b, ${outcomes} FROM ${model('stat_created_day')} WHERE day >= ? AND day < ? GROUP BY day`;
  // Tasks created in part of an hour (a bucket edge off the hour, in zones such as +05:30).
  const partialHourSql = `
    SELECT COUNT(*) AS total, COALESCE(${sumWhere('1', "status = 'Completed'")}, 0) AS completed, COALESCE(${sumWhere('1', "status = 'Failed'")}, 0) AS failed
      FROM tasks ${indexedBy('ix_tasks_created')} WHERE created_at >= ? AND created_at < ?`;
  // Compact occurrences created in it too (Pending: neither completed nor failed), where the span
  // of their creation times (read once an overview, `compact`) meets it: a scan of them.
  const pending = pendingOccurrenceReads(db);
  const partialHourWithCompactSql = `SELECT COUNT(*) + (SELECT COUNT(*) FROM pending_occurrences WHERE created_at >= ? AND created_at < ?) AS total,
      COALESCE(${sumWhere('1', "status = 'Completed'")}, 0) AS completed, COALESCE(${sumWhere('1', "status = 'Failed'")}, 0) AS failed
      FROM tasks ${indexedBy('ix_tasks_created')} WHERE created_at >= ? AND created_at < ?`;
  const partialHour = (fromMs: number, toMs: number, compact: CreatedSpan | undefined) =>
    compact && fromMs <= compact.last && toMs > compact.first
      ? queryOne<Omit<BucketRow, 'b'>>(db, partialHourWithCompactSql, [fromMs, toMs, fromMs, toMs])
      : queryOne<Omit<BucketRow, 'b'>>(db, partialHourSql, [fromMs, toMs]);
  const queueStatus = `SELECT queue, status, SUM(n) AS n, COALESCE(${sumWhere('n', 'is_recurring = 1 AND is_occurrence = 0')}, 0) AS recurring
       FROM ${model('stat_tasks')} GROUP BY queue, status`;
  const throttled = `SELECT queue, COUNT(*) AS n FROM tasks WHERE throttled_until IS NOT NULL AND throttled_until > ? AND status = 'Queued' GROUP BY queue`;
  // The whole hours of many spans at once: each listed hour's outcomes (the hours are summed per span in code).
  const listedHours = (count: number) =>
    `SELECT hour AS b, ${outcomes} FROM ${model('stat_created_hour')} WHERE hour IN (${Array.from({ length: count }, () => '?').join(', ')}) GROUP BY hour`;

  const firstCreatedMs = async () => (await queryOne<{ m: number | null }>(db, `SELECT MIN(created_at) AS m FROM tasks`)).m;
  const total = async (fromMs: number) => (await parts.createdInRange(fromMs)).reduce((s, g) => s + g.n, 0);

  async function tasksOverTime(range: DashboardRange, nowMs: number): Promise<TasksOverTimePoint[]> {
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
      return points(await db.query<BucketRow>(hourly, [first]), first, 24, HOUR_MS);
    }
    const today = floorTo(nowMs, DAY_MS) / DAY_MS;
    let count = range === 'Week' ? 7 : range === 'Month' ? 30 : 90;
    if (range === 'All') {
      const f = (await db.query<{ f: number }>(firstDay))[0]?.f;
      count = f === undefined ? 1 : Math.min(90, Math.max(1, today - f + 1));
    }
    const first = today - count + 1;
    return points(await db.query<BucketRow>(daily, [first]), first, count, DAY_MS);
  }

  /**
   * Tasks created in each span [from, to): whole hours from the hour model, every span's in one
   * statement (a zoned All window moves about ninety day edges: one statement each would be ninety
   * round trips, or as long a hold of the event loop on SQLite), partial hours from the
   * created_at index.
   */
  async function createdInSpans(spans: readonly { from: number; to: number }[], compact: CreatedSpan | undefined): Promise<Omit<BucketRow, 'b'>[]> {
    const out = spans.map(() => ({ total: 0, completed: 0, failed: 0 }));
    const plus = (k: number, r: Omit<BucketRow, 'b'>) => {
      out[k]!.total += r.total;
      out[k]!.completed += r.completed;
      out[k]!.failed += r.failed;
    };
    const wholeHours: { k: number; h0: number; h1: number }[] = [];
    for (const [k, { from, to }] of spans.entries()) {
      const h0 = ceilTo(from, HOUR_MS);
      const h1 = floorTo(to, HOUR_MS);
      if (h0 > h1) {
        plus(k, await partialHour(from, to, compact));
        continue;
      }
      if (from < h0) plus(k, await partialHour(from, h0, compact));
      if (h1 > h0) wholeHours.push({ k, h0: h0 / HOUR_MS, h1: h1 / HOUR_MS });
      if (h1 < to) plus(k, await partialHour(h1, to, compact));
    }
    const hours = [...new Set(wholeHours.flatMap(({ h0, h1 }) => Array.from({ length: h1 - h0 }, (_, i) => h0 + i)))];
    if (hours.length > 0) {
      const byHour = new Map((await db.query<BucketRow>(listedHours(hours.length), hours)).map((r) => [r.b, r]));
      for (const { k, h0, h1 } of wholeHours) {
        for (let h = h0; h < h1; h++) {
          const r = byHour.get(h);
          if (r) plus(k, r);
        }
      }
    }
    return out;
  }

  /** Chart buckets of a zoned window, from the hour read model (the day model for n-day buckets). */
  async function zonedOverTime(w: ZonedWindow, compact: CreatedSpan | undefined): Promise<TasksOverTimePoint[]> {
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
      for (const r of await db.query<BucketRow>(daySpan, [Math.floor(first / DAY_MS), ceilTo(end, DAY_MS) / DAY_MS])) {
        add(Math.max(0, bucketIndex(bounds, Math.max(first, r.b * DAY_MS))), r, 1);
      }
    } else if (!w.hourly) {
      // Daily buckets at local midnights: whole UTC days from the day model, then each edge moved
      // from its nearest UTC midnight to the local one by the tasks created in between (≤ 12 h).
      const anchors = bounds.map((b) => Math.round(b / DAY_MS) * DAY_MS);
      for (const r of await db.query<BucketRow>(daySpan, [anchors[0]! / DAY_MS, anchors[anchors.length - 1]! / DAY_MS])) {
        add(bucketIndex(anchors, r.b * DAY_MS), r, 1);
      }
      const moved = bounds.map((edge, i) => ({ i, edge, anchor: anchors[i]! })).filter(({ edge, anchor }) => edge !== anchor);
      const between = await createdInSpans(moved.map(({ edge, anchor }) => ({ from: Math.min(edge, anchor), to: Math.max(edge, anchor) })), compact);
      for (const [k, { i, edge, anchor }] of moved.entries()) {
        const b = between[k]!;
        if (b.total === 0) continue;
        // count(before edge) = count(before anchor) ± between: the bucket ending at the edge gains
        // what the one starting there loses.
        const sign = edge > anchor ? 1 : -1;
        add(i - 1, b, sign);
        add(i, b, sign === 1 ? -1 : 1);
      }
    } else {
      for (const r of await db.query<BucketRow>(hourSpan, [Math.floor(first / HOUR_MS), ceilTo(end, HOUR_MS) / HOUR_MS])) {
        add(bucketIndex(bounds, r.b * HOUR_MS), r, 1);
      }
      // An edge inside an hour: move the tasks created between the edge and the next full hour.
      for (const edge of bounds) {
        if (edge % HOUR_MS === 0) continue;
        const hourStart = floorTo(edge, HOUR_MS);
        const moved = await partialHour(edge, hourStart + HOUR_MS, compact);
        if (moved.total === 0) continue;
        add(bucketIndex(bounds, hourStart), moved, -1);
        add(bucketIndex(bounds, edge), moved, 1);
      }
    }
    return acc.map((a, i) => ({ timestamp: toIso(bounds[i]!), completed: a.completed, failed: a.failed, total: a.total }));
  }

  const reservedCount = createReservedCount(db);
  return async function dashboardOverview(range: DashboardRange, nowMs: number, timeZone?: string): Promise<DashboardOverview> {
    const zoned = timeZone === undefined ? undefined : zonedWindow(range, nowMs, timeZone, await firstCreatedMs());
    const from = zoned ? zoned.fromMs : rangeStartMs(range, nowMs);
    const todayStart = timeZone === undefined ? floorTo(nowMs, DAY_MS) : startOfLocalDay(timeZone, nowMs);
    const weekStart = timeZone === undefined ? nowMs - 7 * DAY_MS : addLocalDays(timeZone, todayStart + 12 * HOUR_MS, -6);
    const [groups, runTotals, queueRows, throttledRows, totalToday, totalWeek, overTime, backlog] = await Promise.all([
      parts.createdInRange(from),
      parts.runsInRange.totals(from),
      db.query<{ queue: string; status: TaskStatus; n: number; recurring: number }>(queueStatus),
      db.query<{ queue: string; n: number }>(throttled, [nowMs]),
      total(todayStart),
      total(weekStart),
      zoned ? (async () => zonedOverTime(zoned, pending && (await pending.createdSpan())))() : tasksOverTime(range, nowMs),
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
    const q = (name: string) => {
      let s = queues.get(name);
      if (!s) {
        s = { queueName: name, pendingCount: 0, inProgressCount: 0, completedCount: 0, failedCount: 0, throttledCount: 0, recurringWaitingCount: 0 };
        if (db.features.reservations) s.reservedCount = 0;
        queues.set(name, s);
      }
      return s;
    };
    for (const r of queueRows) {
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
    // The reserved part of each queue's Queued rows (only queues with Queued rows can have any).
    const queuedQueues = queueRows.filter((r) => r.status === 'Queued' && r.n > 0).map((r) => r.queue);
    const reserved = await Promise.all(queuedQueues.map((name) => reservedCount(name)));
    queuedQueues.forEach((name, i) => {
      if (reserved[i] !== undefined) q(name).reservedCount = reserved[i];
    });
    let throttledTasks = 0;
    for (const r of throttledRows) {
      q(r.queue).throttledCount = r.n;
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
