import { describe, expect, it } from 'vitest';
import { finishRun, getJson, insertAudit, insertTask, login, useServed } from '../../fixtures/server/servedMonitoring.js';
import { BACKEND } from '../../fixtures/server/monitoredStore.js';

// 11:00 in Los Angeles (PDT, UTC−7) on 10 March 2026, two days after the DST change; 23:30 in Kolkata.
const NOW = Date.parse('2026-03-10T18:00:00Z');
const at = (iso: string) => Date.parse(iso);

interface Point {
  timestamp: string;
  total: number;
  completed: number;
  failed: number;
}
const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
const chartSum = (points: Point[]) => points.reduce((a, p) => a + p.total, 0);

describe(`overview and statistics in the viewer time zone (additive timeZone parameter) on ${BACKEND}`, () => {
  const ids: Record<string, string> = {};
  const s = useServed({ now: () => NOW }, (db) => {
    // Yesterday evening in Los Angeles, but today in UTC.
    insertTask(db, { status: 'Completed', created_at: at('2026-03-10T02:00:00Z') });
    ids.earlyLa = insertTask(db, { status: 'InProgress', created_at: at('2026-03-10T08:30:00Z'), started_at: at('2026-03-10T08:30:01Z') });
    finishRun(db, ids.earlyLa, 'Completed', at('2026-03-10T08:30:01.250Z'), 250);
    // Failed after running 800 ms: executionTimeMs stays 0 (a run that threw), the audits say 800 ms.
    ids.timedOut = insertTask(db, { status: 'InProgress', created_at: at('2026-03-10T17:00:00Z'), started_at: at('2026-03-10T17:00:00.100Z') });
    insertAudit(db, ids.timedOut, 'InProgress', at('2026-03-10T17:00:00.100Z'));
    finishRun(db, ids.timedOut, 'Failed', at('2026-03-10T17:00:00.900Z'), 0, '\nTimeoutError: the handler ran over 800 ms\n   at Demo.Run()');
    insertAudit(db, ids.timedOut, 'Failed', at('2026-03-10T17:00:00.900Z'), 'TimeoutError');
    insertTask(db, { status: 'Queued', created_at: at('2026-03-09T20:00:00Z') });
    // Around Kolkata's midnight (18:30 UTC): one just after, one just before.
    insertTask(db, { status: 'Queued', created_at: at('2026-03-09T18:45:00Z') });
    insertTask(db, { status: 'Queued', created_at: at('2026-03-09T18:15:00Z') });
    // Not work: a durable-schedule definition and an inline recurring row between runs.
    insertTask(db, { status: 'Pending', is_recurring: 1, occurrence_mode: 'Durable', misfire_policy: 'ReplayAll', time_zone_id: 'UTC', schedule_version: 1, task_key: 'nightly', created_at: at('2026-02-01T00:00:00Z') });
    insertTask(db, { status: 'Pending', is_recurring: 1, created_at: at('2026-02-01T00:00:00Z') });
    insertTask(db, { status: 'Pending', created_at: at('2026-02-01T00:00:00Z') });
  });
  let token: string | undefined;
  const get = async (path: string) => getJson(`${s.api}${path}`, (token ??= await login(s.api)));

  it('Today in Los Angeles starts at local midnight; distribution, chart and KPIs count the same tasks', async () => {
    const { status, body } = await get('/dashboard/overview?range=Today&timeZone=America/Los_Angeles');
    expect(status).toBe(200);
    expect(sum(body.statusDistribution)).toBe(2);
    expect(body.totalTasksToday).toBe(2);
    expect(chartSum(body.tasksOverTime)).toBe(2);
    expect(body.tasksOverTime).toHaveLength(24);
    expect(body.tasksOverTime[0].timestamp).toBe('2026-03-10T07:00:00.000Z');
    expect(body.failedCount).toBe(1);
    expect(body.successRate).toBe(50);
    expect(body.window).toEqual({ timeZone: 'America/Los_Angeles', fromUtc: '2026-03-10T07:00:00.000Z', toUtc: '2026-03-11T07:00:00.000Z' });
    // Without the parameter the spec's UTC day stays: the evening task of yesterday (LA) counts.
    const utc = (await get('/dashboard/overview')).body;
    expect(utc.totalTasksToday).toBe(3);
    expect(utc.window.timeZone).toBe('UTC');
  });

  it('Week is 7 local days with buckets at local midnights across the DST change', async () => {
    const { body } = await get('/dashboard/overview?range=Week&timeZone=America/Los_Angeles');
    const stamps = body.tasksOverTime.map((p: Point) => p.timestamp);
    expect(stamps).toHaveLength(7);
    expect(stamps[0]).toBe('2026-03-04T08:00:00.000Z'); // PST
    expect(stamps[4]).toBe('2026-03-08T08:00:00.000Z'); // the 23-hour day
    expect(stamps[5]).toBe('2026-03-09T07:00:00.000Z'); // PDT
    expect(chartSum(body.tasksOverTime)).toBe(sum(body.statusDistribution));
    expect(body.totalTasksWeek).toBe(sum(body.statusDistribution));
    // Each task in its local day: 9 March (LA) holds the four created 18:15–02:00 UTC.
    expect(body.tasksOverTime.map((p: Point) => p.total)).toEqual([0, 0, 0, 0, 0, 4, 2]);
    const kolkata = (await get('/dashboard/overview?range=Week&timeZone=Asia/Kolkata')).body;
    expect(kolkata.tasksOverTime[5].timestamp).toBe('2026-03-08T18:30:00.000Z');
    expect(kolkata.tasksOverTime.map((p: Point) => p.total).slice(5)).toEqual([1, 5]);
  });

  it('a half-hour zone splits the hour at its midnight exactly', async () => {
    const { body } = await get('/dashboard/overview?timeZone=Asia/Kolkata');
    expect(body.tasksOverTime[0].timestamp).toBe('2026-03-09T18:30:00.000Z');
    expect(body.tasksOverTime[0].total).toBe(1); // the 18:45 task, not the 18:15 one
    expect(sum(body.statusDistribution)).toBe(5);
    expect(chartSum(body.tasksOverTime)).toBe(5);
  });

  it('All covers every task in the chart too', async () => {
    const { body } = await get('/dashboard/overview?range=All&timeZone=Europe/Rome');
    expect(body.window.fromUtc).toBeUndefined();
    expect(chartSum(body.tasksOverTime)).toBe(sum(body.statusDistribution));
    expect(sum(body.statusDistribution)).toBe(9);
  });

  it('an unknown zone is a 400 naming timeZone on every endpoint that takes it', async () => {
    for (const path of ['/dashboard/overview', '/statistics/task-types', '/statistics/execution-times', '/statistics/success-rate-trend']) {
      const r = await get(`${path}?timeZone=Mars/Olympus`);
      expect(r.status, path).toBe(400);
      expect(r.body.errors).toHaveProperty('timeZone');
    }
  });

  it('statistics follow the zone: types created today, trend points at local midnights', async () => {
    const types = (await get('/statistics/task-types?range=Today&timeZone=America/Los_Angeles')).body;
    expect(sum(types)).toBe(2);
    const trend = (await get('/statistics/success-rate-trend?period=Last7Days&timeZone=America/Los_Angeles')).body;
    expect(trend.dataPoints).toHaveLength(7);
    expect(trend.dataPoints[6].timestamp).toBe('2026-03-10T07:00:00.000Z');
    expect(trend.dataPoints[6].totalTasks).toBe(2);
    const times = (await get('/statistics/execution-times?range=Today&timeZone=America/Los_Angeles')).body;
    expect(times[0].taskCount).toBe(1);
  });

  it('a failed run shows how long it ran (from its audits) and the first line of its error', async () => {
    const page = (await get('/tasks?statuses=Failed')).body;
    const item = page.items.find((t: { id: string }) => t.id === ids.timedOut);
    expect(item.executionTimeMs).toBe(0);
    expect(item.runDurationMs).toBe(800);
    expect(item.errorSummary).toBe('TimeoutError: the handler ran over 800 ms');
    const detail = (await get(`/tasks/${ids.timedOut}`)).body;
    const audits = detail.statusAudits as { newStatus: string; updatedAtUtc: string }[];
    const ran = Date.parse(audits.find((a) => a.newStatus === 'Failed')!.updatedAtUtc) - Date.parse(audits.find((a) => a.newStatus === 'InProgress')!.updatedAtUtc);
    expect(detail.runDurationMs).toBe(ran);
  });

  it('queue summaries say how much of Pending is schedules and recurring rows between runs', async () => {
    const { body } = await get('/dashboard/overview');
    const q = body.queueSummaries.find((x: { queueName: string }) => x.queueName === 'default');
    expect(q.pendingCount).toBe(3 + 3); // three Queued and three Pending rows
    expect(q.recurringWaitingCount).toBe(2);
  });
});
