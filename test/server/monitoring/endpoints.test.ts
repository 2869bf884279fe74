import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  findNull,
  finishRun,
  getJson,
  insertAudit,
  insertLog,
  insertRun,
  insertTask,
  login,
  useServed,
} from '../../fixtures/server/servedMonitoring.js';
import { BACKEND } from '../../fixtures/server/monitoredStore.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.now();

describe(`monitoring REST API over a ${BACKEND} store (standalone registration)`, () => {
  let token: string;
  const ids: Record<string, string> = {};
  const s = useServed({}, (db) => {
    // A one-shot completed at audit level Full.
    ids.completed = insertTask(db, { type: 'Demo.Billing.SendInvoice', status: 'InProgress', created_at: NOW - 5 * HOUR, started_at: NOW - 5 * HOUR + 1000 });
    insertAudit(db, ids.completed, 'Queued', NOW - 5 * HOUR);
    insertAudit(db, ids.completed, 'InProgress', NOW - 5 * HOUR + 1000);
    finishRun(db, ids.completed, 'Completed', NOW - 5 * HOUR + 1250, 250);
    insertAudit(db, ids.completed, 'Completed', NOW - 5 * HOUR + 1250);
    for (let i = 1; i <= 120; i++) insertLog(db, ids.completed, i, i === 3 ? 'Error' : 'Information');
    // A failed one-shot below Full whose duration was never measured (threw: 0 ms).
    ids.failedErrorsOnly = insertTask(db, { type: 'Demo.Reports.Nightly', queue: 'reports', status: 'InProgress', audit_level: 'ErrorsOnly', created_at: NOW - 3 * HOUR });
    finishRun(db, ids.failedErrorsOnly, 'Failed', NOW - 3 * HOUR + 500, 0, 'Error: boom');
    db.prepare(`UPDATE tasks SET started_at = NULL WHERE id = ?`).run(ids.failedErrorsOnly);
    insertAudit(db, ids.failedErrorsOnly, 'Failed', NOW - 3 * HOUR + 500, 'Error: boom');
    // A completed one-shot below Full with a measured duration: start derived as end − duration.
    ids.completedNone = insertTask(db, { type: 'Demo.Reports.Nightly', queue: 'reports', status: 'InProgress', audit_level: 'None', created_at: NOW - 2 * HOUR });
    finishRun(db, ids.completedNone, 'Completed', NOW - 2 * HOUR + 4000, 1500);
    // Not run yet.
    ids.queued = insertTask(db, { type: 'Demo.Mail.Send', queue: 'mail', status: 'Queued', created_at: NOW - HOUR, task_key: 'mail-welcome-42' });
    // Inline recurring waiting for its next delivery, with runs audit.
    ids.recurring = insertTask(db, { type: 'Demo.Health.Ping', status: 'Pending', is_recurring: 1, created_at: NOW - 10 * HOUR, started_at: NOW - HOUR, scheduled_at: NOW + HOUR });
    insertRun(db, ids.recurring, NOW - 2 * HOUR, 12, 'Completed');
    insertRun(db, ids.recurring, NOW - HOUR, 0, 'Failed', 'Error: flaky');
    // A durable schedule (halted) and occurrences.
    ids.schedule = insertTask(db, {
      type: 'Demo.Reports.Hourly', status: 'Pending', is_recurring: 1, occurrence_mode: 'Durable', misfire_policy: 'ReplayAll',
      time_zone_id: 'Europe/Rome', schedule_version: 2, task_key: 'hourly-report', created_at: NOW - 3 * DAY,
      halt: JSON.stringify({ atUtc: new Date(NOW - HOUR).toISOString(), reason: 'OverflowCapExceeded', detectedAtLeast: 150, isExact: true, cursorUtc: new Date(NOW - 2 * DAY).toISOString(), scheduleVersion: 2 }),
    });
    for (let i = 0; i < 5; i++) {
      const status = i < 2 ? 'Completed' : i === 2 ? 'Failed' : 'Pending';
      const id = insertTask(db, {
        type: 'Demo.Reports.Hourly', status, occurrence_mode: 'Durable', parent_task_id: ids.schedule, schedule_version: 2,
        time_zone_id: 'Europe/Rome', nominal_slot_at: NOW - (10 - i) * HOUR, run_number: i + 1, misfire_kind: i < 3 ? 'CatchUp' : 'OnTime',
        created_at: NOW - (10 - i) * HOUR,
      });
      ids[`occ${i}`] = id;
    }
    ids.collapse = insertTask(db, {
      type: 'Demo.Reports.Hourly', status: 'Queued', occurrence_mode: 'Durable', parent_task_id: ids.schedule, schedule_version: 2,
      time_zone_id: 'Europe/Rome', nominal_slot_at: NOW - 20 * HOUR, run_number: 6, misfire_kind: 'CatchUp',
      missed_from: NOW - 30 * HOUR, missed_through: NOW - 20 * HOUR, missed_count: 11, missed_count_is_exact: 1, created_at: NOW - 20 * HOUR,
    });
    // Throttled row.
    ids.throttled = insertTask(db, { type: 'Demo.Mail.Send', queue: 'mail', status: 'Queued', throttled_until: NOW + 60_000, created_at: NOW - 30 * 60_000 });
    // Old rows (outside Week) for range checks.
    ids.old = insertTask(db, { type: 'Demo.Archive.Compact', status: 'Failed', created_at: NOW - 20 * DAY, exception: 'Error: old' });
  });

  beforeAll(async () => {
    token = await login(s.api);
  });

  const get = (path: string) => getJson(`${s.api}${path}`, token);

  it('GET /config answers without authentication', async () => {
    const r = await getJson(`${s.api}/config`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      apiBasePath: '/svc-monitoring/api', uiBasePath: '/svc-monitoring', signalRHubPath: '/svc-monitoring/hub',
      requireAuthentication: true, uiEnabled: true, managementEnabled: false, eventDebounceMs: 1000,
      passwordLoginEnabled: true,
    });
  });

  it('GET /tasks pages newest first with the list envelope (items, totalCount, page, pageSize, totalPages) and omits null fields', async () => {
    const r = await get('/tasks?pageSize=3');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(r.body.totalCount).toBe(14);
    expect(r.body.page).toBe(1);
    expect(r.body.pageSize).toBe(3);
    expect(r.body.totalPages).toBe(5);
    expect(r.body.items.map((i: { id: string }) => i.id)).toEqual([ids.throttled, ids.queued, ids.completedNone]);
    expect(r.text).not.toContain('null');
    const all = await get('/tasks?pageSize=100');
    expect(findNull(all.body)).toBeUndefined();
  });

  it('task summary: short type in lists, schedule fields absent together on a plain row, none on a one-shot', async () => {
    const r = await get('/tasks?pageSize=100');
    const byId = new Map<string, any>(r.body.items.map((i: any) => [i.id, i]));
    const plain = byId.get(ids.queued);
    expect(plain.type).toBe('Send');
    for (const f of ['occurrenceMode', 'misfirePolicy', 'timeZoneId', 'scheduleVersion', 'parentTaskId', 'nominalSlotUtc', 'misfireKind']) {
      expect(plain).not.toHaveProperty(f);
    }
    const schedule = byId.get(ids.schedule);
    expect(schedule).toMatchObject({ occurrenceMode: 'Durable', misfirePolicy: 'ReplayAll', timeZoneId: 'Europe/Rome', scheduleVersion: 2, isRecurring: true });
    expect(schedule).not.toHaveProperty('parentTaskId');
    const occ = byId.get(ids.occ0);
    expect(occ).toMatchObject({ parentTaskId: ids.schedule, occurrenceMode: 'Durable', misfireKind: 'CatchUp', scheduleVersion: 2, nominalSlotUtc: new Date(NOW - 10 * HOUR).toISOString() });
    expect(occ).not.toHaveProperty('misfirePolicy');
    const recurring = byId.get(ids.recurring);
    expect(recurring.isRecurring).toBe(true);
    expect(recurring).not.toHaveProperty('occurrenceMode');
  });

  it('startedAtUtc: the audited start at Full, end minus duration below Full, absent when unmeasured', async () => {
    const r = await get('/tasks?pageSize=100');
    const byId = new Map<string, any>(r.body.items.map((i: any) => [i.id, i]));
    expect(byId.get(ids.completed).startedAtUtc).toBe(new Date(NOW - 5 * HOUR + 1000).toISOString());
    expect(byId.get(ids.completedNone).startedAtUtc).toBe(new Date(NOW - 2 * HOUR + 4000 - 1500).toISOString());
    expect(byId.get(ids.failedErrorsOnly)).not.toHaveProperty('startedAtUtc');
    expect(byId.get(ids.queued)).not.toHaveProperty('startedAtUtc');
    expect(byId.get(ids.recurring)).not.toHaveProperty('startedAtUtc');
    expect(byId.get(ids.schedule)).not.toHaveProperty('startedAtUtc');
  });

  it('filters of GET /tasks', async () => {
    const total = async (q: string) => (await get(`/tasks?${q}`)).body.totalCount as number;
    expect(await total('statuses=Completed')).toBe(4);
    expect(await total('statuses=Completed&statuses=Failed')).toBe(7);
    expect(await total('statuses=queued,failed')).toBe(6);
    expect(await total('queueName=mail')).toBe(2);
    expect(await total('taskType=reports.hourly')).toBe(7);
    expect(await total('taskType=nothing-like-this')).toBe(0);
    expect(await total('isRecurring=true')).toBe(2);
    expect(await total('onlyOccurrences=true')).toBe(6);
    expect(await total('onlyOccurrences=false')).toBe(8);
    expect(await total('onlyCatchUp=true')).toBe(4);
    expect(await total('onlyCatchUp=false')).toBe(10);
    expect(await total(`parentTaskId=${ids.schedule}`)).toBe(6);
    expect(await total(`createdAfter=${new Date(NOW - 4 * HOUR).toISOString()}`)).toBe(4);
    expect(await total(`createdBefore=${new Date(NOW - 2 * DAY).toISOString()}`)).toBe(2);
    expect(await total('searchTerm=welcome')).toBe(1); // task key
    expect(await total('searchTerm=WELCOME')).toBe(1); // case-insensitive
    expect(await total('searchTerm=l-welcome-4')).toBe(1);
    // Wildcard characters in the term are literal: "_" is not any character, "%" not any run.
    expect(await total('searchTerm=mail_welcome')).toBe(0);
    expect(await total(`searchTerm=${encodeURIComponent('mail%42')}`)).toBe(0);
    expect(await total('searchTerm=NightlyHandler')).toBe(2);
    expect(await total('searchTerm=SendInvoiceHandler')).toBe(1); // handler
    expect(await total('searchTerm=archive')).toBe(1); // type
    const page = await get('/tasks?statuses=Failed&queueName=reports');
    expect(page.body.items.map((i: any) => i.id)).toEqual([ids.failedErrorsOnly]);
  });

  it('sorting (case-insensitive), clamping and a page past the end', async () => {
    const asc = await get('/tasks?sortBy=executiontimems&sortDescending=false&pageSize=100');
    const times = asc.body.items.filter((i: any) => i.executionTimeMs !== undefined).map((i: any) => i.executionTimeMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const byType = await get('/tasks?sortBy=Type&sortDescending=false&pageSize=100');
    const types = byType.body.items.map((i: any) => i.type);
    expect(types[0]).toBe('Compact');
    const clamped = await get('/tasks?pageSize=100000&page=-4');
    expect(clamped.body.pageSize).toBe(500);
    expect(clamped.body.page).toBe(1);
    expect((await get('/tasks?pageSize=0')).body.pageSize).toBe(1);
    const past = await get('/tasks?page=99');
    expect(past.body.items).toEqual([]);
    expect(past.body.totalCount).toBe(14);
  });

  it('bad input answers 400 problem details naming the parameter', async () => {
    for (const [q, param] of [
      ['sortBy=Nope', 'sortBy'],
      ['statuses=Done', 'statuses'],
      ['isRecurring=maybe', 'isRecurring'],
      ['createdAfter=yesterday', 'createdAfter'],
      ['parentTaskId=123', 'parentTaskId'],
      ['page=1.5', 'page'],
      ['pageSize=ten', 'pageSize'],
    ] as const) {
      const r = await get(`/tasks?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(r.body).toMatchObject({ status: 400, title: 'Bad Request' });
      expect(Object.keys(r.body.errors)).toContain(param);
    }
    expect((await get('/tasks/not-a-guid')).status).toBe(400);
    expect((await get('/dashboard/overview?range=Year')).body.errors).toHaveProperty('range');
    expect((await get('/statistics/success-rate-trend?period=Forever')).body.errors).toHaveProperty('period');
    expect((await get('/tasks/x/status-audit?take=abc')).status).toBe(400);
  });

  it('GET /tasks/{id}: detail with full names, audits newest first, logs by sequence', async () => {
    const r = await get(`/tasks/${ids.completed}`);
    expect(r.status).toBe(200);
    const d = r.body;
    expect(d.type).toBe('Demo.Billing.SendInvoice');
    expect(d.handler).toBe('Demo.Billing.SendInvoiceHandler');
    expect(d.request).toBe('{"invoiceId":7}');
    expect(d.auditLevel).toBe('Full');
    expect(d.statusAudits.map((a: any) => a.newStatus)).toEqual(['Completed', 'InProgress', 'Queued']);
    expect(d.statusAuditsTotalCount).toBe(3);
    expect(d.runsAudits).toEqual([]);
    expect(d.runsAuditsTotalCount).toBe(0);
    expect(d.executionLogs).toHaveLength(100);
    expect(d.executionLogs[0].sequenceNumber).toBe(1);
    expect(d.executionLogs[2]).toMatchObject({ level: 'Error', exceptionDetails: 'Error: boom\n at x', taskId: ids.completed });
    expect(d.executionLogs[0]).not.toHaveProperty('exceptionDetails');
    expect(d.executionLogsTotalCount).toBe(120);
    expect(d).not.toHaveProperty('occurrence');
    expect(d).not.toHaveProperty('halt');
    expect(findNull(d)).toBeUndefined();
  });

  it('detail of a schedule carries the halt block; of an occurrence, the occurrence block', async () => {
    const sch = (await get(`/tasks/${ids.schedule}`)).body;
    expect(sch.halt).toEqual({
      atUtc: new Date(NOW - HOUR).toISOString(), reason: 'OverflowCapExceeded', detectedAtLeast: 150, isExact: true,
      cursorUtc: new Date(NOW - 2 * DAY).toISOString(), scheduleVersion: 2,
    });
    expect(sch.taskKey).toBe('hourly-report');
    const occ = (await get(`/tasks/${ids.collapse}`)).body;
    expect(occ.occurrence).toEqual({
      slotUtc: new Date(NOW - 20 * HOUR).toISOString(), runNumber: 6, timeZoneId: 'Europe/Rome', misfireKind: 'CatchUp',
      missedFromUtc: new Date(NOW - 30 * HOUR).toISOString(), missedThroughUtc: new Date(NOW - 20 * HOUR).toISOString(),
      missedCount: 11, missedCountIsExact: true,
    });
    const occ0 = (await get(`/tasks/${ids.occ0}`)).body;
    expect(occ0.occurrence).not.toHaveProperty('missedCount');
    expect(occ0.runsAudits).toEqual([]);
  });

  it('unknown task → 404 problem on detail and every sub-resource', async () => {
    const id = randomUUID();
    for (const p of ['', '/status-audit', '/runs-audit', '/occurrences', '/execution-logs']) {
      const r = await get(`/tasks/${id}${p}`);
      expect(r.status, p).toBe(404);
      expect(r.body.status).toBe(404);
    }
  });

  it('status-audit and runs-audit page newest first with skip/take clamping', async () => {
    const a = await get(`/tasks/${ids.completed}/status-audit?skip=1&take=1`);
    expect(a.body).toMatchObject({ totalCount: 3, skip: 1, take: 1 });
    expect(a.body.audits.map((x: any) => x.newStatus)).toEqual(['InProgress']);
    const z = await get(`/tasks/${ids.completed}/status-audit?take=0`);
    expect(z.body).toEqual({ audits: [], totalCount: 3, skip: 0, take: 0 });
    const c = await get(`/tasks/${ids.completed}/status-audit?skip=-5&take=9999`);
    expect(c.body.skip).toBe(0);
    expect(c.body.take).toBe(500);
    const runs = await get(`/tasks/${ids.recurring}/runs-audit`);
    expect(runs.body.totalCount).toBe(2);
    expect(runs.body.audits[0]).toMatchObject({ status: 'Failed', executionTimeMs: 0, exception: 'Error: flaky', queuedTaskId: ids.recurring });
    expect(runs.body.audits[1]).toMatchObject({ status: 'Completed', executionTimeMs: 12 });
    expect(runs.body.audits[1]).not.toHaveProperty('exception');
    const failedAudit = (await get(`/tasks/${ids.failedErrorsOnly}/status-audit`)).body.audits[0];
    expect(failedAudit).toMatchObject({ newStatus: 'Failed', exception: 'Error: boom' });
  });

  it('execution-logs pages by sequence', async () => {
    const r = await get(`/tasks/${ids.completed}/execution-logs?skip=100&take=50`);
    expect(r.body.totalCount).toBe(120);
    expect(r.body.logs).toHaveLength(20);
    expect(r.body.logs[0].sequenceNumber).toBe(101);
  });

  it('occurrences: newest slot first, nonTerminalOnly, empty for a non-schedule', async () => {
    const r = await get(`/tasks/${ids.schedule}/occurrences?take=2`);
    expect(r.body.totalCount).toBe(6);
    expect(r.body.take).toBe(2);
    expect(r.body.occurrences.map((o: any) => o.id)).toEqual([ids.occ4, ids.occ3]);
    expect(r.body.occurrences[0]).toMatchObject({ parentTaskId: ids.schedule, status: 'Pending', scheduleVersion: 2, occurrence: { runNumber: 5, misfireKind: 'OnTime' } });
    const open = await get(`/tasks/${ids.schedule}/occurrences?nonTerminalOnly=true`);
    expect(open.body.occurrences.map((o: any) => o.id).sort()).toEqual([ids.occ3, ids.occ4, ids.collapse].sort());
    const none = await get(`/tasks/${ids.queued}/occurrences`);
    expect(none.body).toEqual({ occurrences: [], totalCount: 0, skip: 0, take: 100 });
    expect((await get(`/tasks/${ids.schedule}/occurrences?take=900`)).body.take).toBe(500);
  });

  it('GET /tasks/counts from the counters', async () => {
    const r = await get('/tasks/counts');
    expect(r.body).toEqual({ all: 14, standard: 12, recurring: 2, failed: 3, occurrences: 6 });
  });

  it('GET /dashboard/overview per range (Today, Week, Month, All) with the catch-up backlog over every schedule', async () => {
    const today = (await get('/dashboard/overview')).body;
    const all = (await get('/dashboard/overview?range=All')).body;
    const week = (await get('/dashboard/overview?range=week')).body;
    expect(all.statusDistribution).toMatchObject({ Completed: 4, Failed: 3, Queued: 3, Pending: 4, InProgress: 0 });
    expect(all.failedCount).toBe(3);
    expect(all.successRate).toBe(57.14);
    expect(week.failedCount).toBe(2);
    expect(week.totalTasksWeek).toBe(13);
    expect(all.totalTasksWeek).toBe(13);
    // avg of measured completed runs: 250 and 1500 (the failed 0 ms run is left out).
    expect(all.avgExecutionTimeMs).toBe(875);
    expect(today.tasksOverTime).toHaveLength(24);
    expect(week.tasksOverTime).toHaveLength(7);
    expect((await get('/dashboard/overview?range=Month')).body.tasksOverTime).toHaveLength(30);
    expect(all.tasksOverTime.length).toBeLessThanOrEqual(90);
    expect(all.tasksOverTime.reduce((s: number, p: any) => s + p.total, 0)).toBe(14);
    expect(all.throttledTasks).toBe(1);
    const mail = all.queueSummaries.find((q: any) => q.queueName === 'mail');
    expect(mail).toEqual({ queueName: 'mail', pendingCount: 2, inProgressCount: 0, completedCount: 0, failedCount: 0, throttledCount: 1, recurringWaitingCount: 0, reservedCount: 0 });
    expect(today.catchUpBacklog).toEqual({
      pending: 3, active: 0, failed: 1, skipped: 0, completed: 2,
      oldestPendingSlotUtc: new Date(NOW - 20 * HOUR).toISOString(),
      lagSeconds: expect.any(Number), haltedSchedules: 1,
    });
    expect(today.catchUpBacklog.lagSeconds).toBeGreaterThanOrEqual(20 * 3600);
  });

  it('GET /dashboard/recent-activity newest first with limit clamping', async () => {
    const r = await get('/dashboard/recent-activity?limit=2');
    expect(r.body).toHaveLength(2);
    expect(r.body[0]).toMatchObject({ taskId: ids.failedErrorsOnly, status: 'Failed', taskType: 'Nightly' });
    expect(r.body[0].message).toContain('boom');
    expect((await get('/dashboard/recent-activity?limit=1000')).body.length).toBeLessThanOrEqual(100);
  });

  it('GET /queues and /queues/{name}/tasks', async () => {
    const q = (await get('/queues')).body;
    expect(q.map((x: any) => x.queueName)).toEqual(['default', 'mail', 'reports']);
    expect(q.find((x: any) => x.queueName === 'reports')).toEqual({
      queueName: 'reports', totalTasks: 2, queuedTasks: 0, inProgressTasks: 0, completedTasks: 1, failedTasks: 1, cancelledTasks: 0, successRate: 50, finishedLastMinute: expect.any(Number), reservedCount: 0,
    });
    const tasks = await get('/queues/mail/tasks?sortBy=CreatedAtUtc&sortDescending=false');
    expect(tasks.body.items.map((i: any) => i.id)).toEqual([ids.queued, ids.throttled]);
    expect((await get('/queues/nowhere/tasks')).body.totalCount).toBe(0);
  });

  it('statistics: success-rate trend, task types, execution times', async () => {
    const trend = (await get('/statistics/success-rate-trend')).body;
    expect(trend.period).toBe('Last7Days');
    expect(trend.dataPoints).toHaveLength(7);
    const sum = trend.dataPoints.reduce((a: number, p: any) => a + p.totalTasks, 0);
    expect(sum).toBe(3);
    expect((await get('/statistics/success-rate-trend?period=Last30Days')).body.dataPoints).toHaveLength(30);
    expect((await get('/statistics/success-rate-trend?period=Last90Days')).body.dataPoints).toHaveLength(13);
    const types = (await get('/statistics/task-types?range=All')).body;
    expect(types['Demo.Reports.Hourly']).toBe(7);
    expect(types['Demo.Archive.Compact']).toBe(1);
    expect((await get('/statistics/task-types?range=Week')).body).not.toHaveProperty(['Demo.Archive.Compact']);
    const times = (await get('/statistics/execution-times?range=All')).body;
    expect(times).toContainEqual({ taskType: 'Demo.Reports.Nightly', averageExecutionTime: 1500, minExecutionTime: 1500, maxExecutionTime: 1500, taskCount: 1 });
  });

  it('unknown API path → 404 problem; nothing outside /svc-monitoring is touched', async () => {
    const r = await get('/does/not/exist');
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toMatch(/problem\+json/);
    const host = await getJson(`${s.baseUrl}/host/ping`);
    expect(host.body).toEqual({ pong: true });
    const outside = await getJson(`${s.baseUrl}/elsewhere`);
    expect(outside.status).toBe(404);
    expect(outside.headers.get('content-type')).not.toMatch(/problem\+json/);
  });

  it('standalone registration: a hub only over PostgreSQL (events of every instance), management 404 while disabled', async () => {
    const negotiate = await fetch(`${s.baseUrl}/svc-monitoring/hub/negotiate?negotiateVersion=1`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    // SQLite standalone has no engine events to relay; a PostgreSQL store carries them over NOTIFY.
    expect(negotiate.status).toBe(BACKEND === 'postgres' ? 200 : 404);
    const m = await fetch(`${s.api}/management/tasks/${ids.occ2}/requeue`, { method: 'POST' });
    expect(m.status).toBe(404);
  });

  it('malformed JSON body → 400 problem', async () => {
    const r = await fetch(`${s.api}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username": ' });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/problem\+json/);
  });
});
