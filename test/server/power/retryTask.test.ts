import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, insertTask, login, postJson, withServed } from '../../fixtures/server/servedMonitoring.js';
import { waitFor } from '../../fixtures/waitFor.js';
import { OPERATOR, startPowerHost } from '../../fixtures/server/powerHost.js';

describe('POST /management/tasks/{id}/retry (real engine)', () => {
  let h: Awaited<ReturnType<typeof startPowerHost>>;
  beforeAll(async () => {
    h = await startPowerHost();
  });
  afterAll(async () => h?.close());
  const retry = (id: string, token = h.operate, headers: Record<string, string> = {}) =>
    postJson(`${h.s.api}/management/tasks/${id}/retry`, undefined, token, headers);

  it('a Failed one-shot goes back to Queued with the same id, runs again, and its audit names who retried it', async () => {
    const id = await h.insert({ type: 'Power.Works', status: 'Failed', exception: 'Error: boom' });
    const r = await retry(id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'Succeeded', message: expect.stringContaining('operator'), taskId: id });
    await waitFor(async () => ((await h.row(id))?.status === 'Completed' ? true : undefined), 15_000, 'the retried task to complete', 25);
    expect((await h.audits(id)).map((a) => [a.new_status, a.changed_by])).toEqual([
      ['Queued', 'operator'],
      ['InProgress', null],
      ['Completed', null],
    ]);
    const detail = await getJson(`${h.s.api}/tasks/${id}/status-audit`, h.read);
    expect(detail.body.audits.at(-1)).toMatchObject({ newStatus: 'Queued', changedBy: 'operator' });
  });

  it('Cancelled and ServiceStopped one-shots and a Failed occurrence of a live schedule are retried', async () => {
    const cancelled = await h.insert({ type: 'Power.Idle', status: 'Cancelled' });
    const stopped = await h.insert({ type: 'Power.Idle', status: 'ServiceStopped' });
    const { ids } = await h.schedule(1, 'Failed');
    for (const id of [cancelled, stopped, ids[0]!]) {
      const r = await retry(id);
      expect(r.status, id).toBe(200);
      expect((await h.row(id))?.status).toBe('Queued');
    }
  });

  it('409 with the reason for rows it does not apply to; nothing changes', async () => {
    const completed = await h.insert({ type: 'Power.Idle', status: 'Completed' });
    const queued = await h.insert({ type: 'Power.Idle', status: 'Queued' });
    const recurring = await h.insert({ type: 'Power.Idle', status: 'Failed', is_recurring: 1 });
    const { scheduleId } = await h.schedule(0, 'Failed');
    const dead = await h.schedule(1, 'Failed', true);
    const cases: [string, RegExp][] = [
      [completed, /Completed; only a Failed, Cancelled or ServiceStopped/],
      [queued, /Queued/],
      [recurring, /recurring/],
      [scheduleId, /schedule row/],
      [dead.ids[0]!, /cancelled/],
    ];
    for (const [id, reason] of cases) {
      const before = (await h.row(id))?.status;
      const r = await retry(id);
      expect(r.status, id).toBe(409);
      expect(r.body).toEqual({ status: 'Conflict', message: expect.stringMatching(reason), taskId: id });
      expect((await h.row(id))?.status).toBe(before);
    }
  });

  it('404 for an unknown task, 400 for a malformed id', async () => {
    const id = randomUUID();
    const r = await retry(id);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ status: 'NotFound', taskId: id });
    const bad = await retry('not-a-guid');
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors)).toEqual(['id']);
  });

  it('the management gates: 401 without a token, 403 read role, 403 cross-site', async () => {
    const id = await h.insert({ type: 'Power.Idle', status: 'Failed' });
    expect((await postJson(`${h.s.api}/management/tasks/${id}/retry`, undefined)).status).toBe(401);
    expect((await retry(id, h.read)).status).toBe(403);
    expect((await retry(id, h.operate, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await retry(id, h.operate, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await h.row(id))?.status).toBe('Failed');
  });
});

describe('retry: enabled flag, hook and standalone', () => {
  it('404 when management endpoints are disabled; 501 on a standalone registration', async () => {
    await withServed({ loginRateLimit: false, enableManagementEndpoints: false }, async (s, t) => {
      const id = await t.seed((db) => insertTask(db, { status: 'Failed' }));
      const r = await postJson(`${s.api}/management/tasks/${id}/retry`, undefined);
      expect(r.status).toBe(404);
    });
    await withServed({ loginRateLimit: false, enableManagementEndpoints: true, ...OPERATOR }, async (s, t) => {
      const id = await t.seed((db) => insertTask(db, { status: 'Failed' }));
      const token = await login(s.api, OPERATOR.managementUsername, OPERATOR.managementPassword);
      const r = await postJson(`${s.api}/management/tasks/${id}/retry`, undefined, token);
      expect(r.status).toBe(501);
      expect(r.body.status).toBe('NotSupported');
    });
  });

  it('the managementAuthorization hook alone decides, and its principal is recorded', async () => {
    const h = await startPowerHost({
      managementAuthorization: async (req) => {
        (req as unknown as { user: { name: string } }).user = { name: 'alice@host' };
        return req.headers['x-allow'] === 'yes';
      },
    });
    try {
      const id = await h.insert({ type: 'Power.Idle', status: 'Failed' });
      const url = `${h.s.api}/management/tasks/${id}/retry`;
      expect((await postJson(url, undefined, undefined, { 'x-allow': 'no' })).status).toBe(403);
      const ok = await postJson(url, undefined, undefined, { 'x-allow': 'yes' });
      expect(ok.status).toBe(200);
      expect((await h.audits(id)).at(-1)).toEqual({ new_status: 'Queued', changed_by: 'alice@host' });
    } finally {
      await h.close();
    }
  });
});
