import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkOperation, SvcEvent } from '../../../server/src/contracts/index.js';
import { getJson, insertTask, login, postJson, withServed } from '../../fixtures/server/servedMonitoring.js';
import { waitFor } from '../../fixtures/waitFor.js';
import { OPERATOR, startPowerHost } from '../../fixtures/server/powerHost.js';

describe('POST /management/bulk/{action} and GET /management/bulk/{operationId} (real engine)', () => {
  let h: Awaited<ReturnType<typeof startPowerHost>>;
  beforeAll(async () => {
    h = await startPowerHost();
  });
  afterAll(async () => h?.close());
  const bulk = (action: string, body: unknown, token = h.operate, headers: Record<string, string> = {}) =>
    postJson(`${h.s.api}/management/bulk/${action}`, body, token, headers);
  const status = (operationId: string, token = h.operate) => getJson(`${h.s.api}/management/bulk/${operationId}`, token);
  const finished = (operationId: string) =>
    waitFor(async () => {
      const r = await status(operationId);
      return r.body.state === 'Running' ? undefined : (r.body as BulkOperation);
    }, 15_000, 'the bulk operation to finish', 25);

  it('requeues every Failed occurrence of a filter in batches, with BulkProgress hub events and one audit per row; rows that no longer qualify are skipped', async () => {
    const live = await h.schedule(1500, 'Failed');
    const dead = await h.schedule(20, 'Failed', true); // occurrences of a cancelled schedule: match the filter, do not qualify
    const hub = await h.hub(h.read);
    const progress: BulkOperation[] = [];
    hub.on('BulkProgress', (p: BulkOperation) => progress.push(p));
    try {
      const filter = { statuses: ['Failed'], onlyOccurrences: true, taskType: 'Power.Idle' };
      const list = await getJson(`${h.s.api}/tasks?statuses=Failed&onlyOccurrences=true&taskType=Power.Idle&pageSize=1`, h.read);
      expect(list.body.totalCount).toBe(1520);
      const r = await bulk('requeue', { filter, expectedCount: 1520 });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ action: 'requeue', state: 'Running', count: 1520, requestedBy: 'operator', operationId: expect.any(String) });
      const done = await finished(r.body.operationId);
      expect(done).toMatchObject({ state: 'Completed', count: 1520, processed: 1520, succeeded: 1500, skipped: 20 });
      await waitFor(() => (progress.some((p) => p.state === 'Completed') ? true : undefined), 15_000, 'the final BulkProgress event', 25);
      expect(progress.at(-1)).toMatchObject({ operationId: r.body.operationId, state: 'Completed', succeeded: 1500, skipped: 20 });
      expect(progress.every((p) => p.operationId === r.body.operationId)).toBe(true);
      for (const id of [live.ids[0]!, live.ids[1499]!]) {
        expect((await h.row(id))?.status).toBe('Queued');
        expect(await h.audits(id)).toEqual([{ new_status: 'Queued', changed_by: 'operator' }]);
      }
      expect((await h.row(dead.ids[0]!))?.status).toBe('Failed');
      expect(await h.audits(dead.ids[0]!)).toEqual([]);
    } finally {
      await hub.stop();
    }
  });

  it('retry and cancel apply to the rows they qualify for; cancel sends Cancelled events', async () => {
    const failed = await h.insertMany(Array.from({ length: 30 }, () => ({ type: 'Power.RetryMe', status: 'Failed' })));
    const completed = await h.insert({ type: 'Power.RetryMe', status: 'Completed' });
    const r = await bulk('retry', { filter: { taskType: 'Power.RetryMe' }, expectedCount: 31 });
    expect(r.status).toBe(200);
    expect(await finished(r.body.operationId)).toMatchObject({ succeeded: 30, skipped: 1 });
    expect(new Set(await h.statuses(failed))).toEqual(new Set(['Queued']));
    expect((await h.row(completed))?.status).toBe('Completed');

    const events: SvcEvent[] = [];
    const listener = (e: SvcEvent) => e.kind === 'Cancelled' && events.push(e);
    h.engine.on('event', listener);
    const c = await bulk('cancel', { filter: { taskType: 'Power.RetryMe', statuses: ['Queued'] }, expectedCount: 30 });
    expect(c.status).toBe(200);
    expect(await finished(c.body.operationId)).toMatchObject({ succeeded: 30, skipped: 0 });
    h.engine.off('event', listener);
    expect(new Set(await h.statuses(failed))).toEqual(new Set(['Cancelled']));
    expect(new Set(events.map((e) => e.taskId))).toEqual(new Set(failed));
    expect((await h.audits(failed[0]!)).map((a) => [a.new_status, a.changed_by])).toEqual([
      ['Queued', 'operator'],
      ['Cancelled', 'operator'],
    ]);
  });

  it('expectedCount off by more than 5 % → 409 with the new count, nothing done; within 5 % it runs', async () => {
    const ids = await h.insertMany(Array.from({ length: 100 }, () => ({ type: 'Power.FivePercent', status: 'Failed' })));
    const over = await bulk('retry', { filter: { taskType: 'Power.FivePercent' }, expectedCount: 94 });
    expect(over.status).toBe(409);
    expect(over.body).toEqual({ status: 'Conflict', message: expect.stringContaining('100'), expectedCount: 94, count: 100 });
    const under = await bulk('retry', { filter: { taskType: 'Power.FivePercent' }, expectedCount: 106 });
    expect(under.status).toBe(409);
    expect(new Set(await h.statuses(ids))).toEqual(new Set(['Failed']));
    const near = await bulk('retry', { filter: { taskType: 'Power.FivePercent' }, expectedCount: 96 });
    expect(near.status).toBe(200);
    expect(await finished(near.body.operationId)).toMatchObject({ count: 100, succeeded: 100 });
  });

  it('a filter that matches nothing answers 200 with count 0 and does nothing', async () => {
    const r = await bulk('cancel', { filter: { taskType: 'Power.NoSuchType' }, expectedCount: 12 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ count: 0, processed: 0, succeeded: 0, state: 'Completed' });
  });

  it('bad input: unknown action 404, bad body 400 naming the field, unknown operation 404', async () => {
    const unknown = await bulk('explode', { filter: {}, expectedCount: 1 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toMatch(/requeue, retry, cancel/);
    const noCount = await bulk('retry', { filter: {} });
    expect(noCount.status).toBe(400);
    expect(Object.keys(noCount.body.errors)).toEqual(['expectedCount']);
    const badFilter = await bulk('retry', { filter: { statuses: ['Exploded'], pageSize: 5, requestSearch: '"open' }, expectedCount: 1 });
    expect(badFilter.status).toBe(400);
    expect(Object.keys(badFilter.body.errors).sort()).toEqual(['filter.pageSize', 'filter.requestSearch', 'filter.statuses']);
    const notObject = await bulk('retry', '[1]');
    expect(notObject.status).toBe(400);
    expect((await status(randomUUID())).status).toBe(404);
    expect((await status('nope')).status).toBe(400);
  });

  it('the filter includes argument search', async () => {
    const [match, other] = await h.insertMany([
      { type: 'Power.Args', status: 'Failed', request: '{"customer":"ACME-42"}' },
      { type: 'Power.Args', status: 'Failed', request: '{"customer":"Globex"}' },
    ]);
    const r = await bulk('retry', { filter: { requestSearch: 'ACME-42', statuses: ['Failed'] }, expectedCount: 1 });
    expect(r.status).toBe(200);
    expect(await finished(r.body.operationId)).toMatchObject({ count: 1, succeeded: 1 });
    expect(await h.statuses([match!, other!])).toEqual(['Queued', 'Failed']);
  });

  it('set-based batches: only qualifying rows change, audits follow each row\'s audit level, and the read models equal their recomputation', async () => {
    const failed = (extra: Record<string, unknown> = {}) => ({ type: 'Power.Mixed', status: 'Failed', exception: 'Error: x', ...extra });
    const full = Array.from({ length: 700 }, (_, i) => failed({ queue: i % 2 === 0 ? 'default' : 'mail', created_at: Date.now() - i * 60_000 }));
    const rows = await h.insertMany([
      ...full,
      failed({ audit_level: 'ErrorsOnly' }),
      failed({ audit_level: 'None' }),
      failed({ is_recurring: 1 }),
      failed({ occurrence_mode: 'Durable', task_key: `power-mixed-${randomUUID()}` }),
      { type: 'Power.Mixed', status: 'Completed' },
    ]);
    const fullIds = rows.slice(0, 700);
    const [errorsOnly, none, recurring, scheduleRow, completed] = rows.slice(700) as [string, string, string, string, string];
    const r = await bulk('retry', { filter: { taskType: 'Power.Mixed' }, expectedCount: 705 });
    expect(r.status).toBe(200);
    expect(await finished(r.body.operationId)).toMatchObject({ count: 705, succeeded: 702, skipped: 3 });
    expect(new Set(await h.statuses([...fullIds, errorsOnly, none]))).toEqual(new Set(['Queued']));
    expect(await h.statuses([recurring, scheduleRow, completed])).toEqual(['Failed', 'Failed', 'Completed']);
    expect(await h.audits(fullIds[699]!)).toEqual([{ new_status: 'Queued', changed_by: 'operator' }]);
    expect([...(await h.audits(errorsOnly)), ...(await h.audits(none))]).toEqual([]);
    const c = await bulk('cancel', { filter: { taskType: 'Power.Mixed', statuses: ['Queued'] }, expectedCount: 702 });
    expect(await finished(c.body.operationId)).toMatchObject({ succeeded: 702, skipped: 0 });
    expect((await h.row(fullIds[0]!))?.status).toBe('Cancelled');

    const live = await h.t.countModels();
    expect(live.stat_tasks).toContainEqual(expect.objectContaining({ type: 'Power.Mixed', status: 'Cancelled', queue: 'mail', n: 350 }));
    await h.t.rebuildReadModels();
    expect(await h.t.countModels()).toEqual(live);
  });

  it('the management gates apply: 401, 403 read role, 403 cross-site; nothing done', async () => {
    const id = await h.insert({ type: 'Power.Gated', status: 'Failed' });
    const body = { filter: { taskType: 'Power.Gated' }, expectedCount: 1 };
    expect((await bulk('retry', body, '')).status).toBe(401);
    expect((await bulk('retry', body, h.read)).status).toBe(403);
    expect((await bulk('retry', body, h.operate, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await status(randomUUID(), h.read)).status).toBe(403);
    expect((await h.row(id))?.status).toBe('Failed');
  });
});

describe('bulk: disabled and standalone', () => {
  it('404 when disabled, 501 NotSupported without an engine', async () => {
    await withServed({ loginRateLimit: false }, async (s) => {
      expect((await postJson(`${s.api}/management/bulk/retry`, { filter: {}, expectedCount: 0 })).status).toBe(404);
    });
    await withServed({ loginRateLimit: false, enableManagementEndpoints: true, ...OPERATOR }, async (s, t) => {
      await t.seed((db) => insertTask(db, { status: 'Failed' }));
      const token = await login(s.api, OPERATOR.managementUsername, OPERATOR.managementPassword);
      const r = await postJson(`${s.api}/management/bulk/retry`, { filter: {}, expectedCount: 1 }, token);
      expect(r.status).toBe(501);
      expect(r.body.status).toBe('NotSupported');
    });
  });

  it('operations are kept in memory only, and the 404 and the OpenAPI document say so', async () => {
    const h = await startPowerHost({ enableOpenApiDocument: true });
    try {
      const missing = await getJson(`${h.s.api}/management/bulk/${randomUUID()}`, h.operate);
      expect(missing.status).toBe(404);
      expect(missing.body.detail).toMatch(/kept in memory until restart/);
      const doc = (await getJson(`${h.s.baseUrl}/svc-monitoring/openapi/svc-monitoring.json`)).body;
      const op = doc.paths['/management/bulk/{operationId}'].get;
      expect(op.description).toMatch(/after a restart, or on another instance .* the answer is 404/);
    } finally {
      await h.close();
    }
  });
});
