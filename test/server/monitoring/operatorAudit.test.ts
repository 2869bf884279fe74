import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperatorAuditEntry, OperatorAuditPage } from '../../../server/src/contracts/index.js';
import type { Engine } from '../../../server/src/index.js';
import { openMonitoredStore, type MonitoredStore } from '../../fixtures/server/monitoredStore.js';
import { getJson, insertTask, postJson, serve, withServed, type Served } from '../../fixtures/server/servedMonitoring.js';
import { webhookReceiver } from '../../fixtures/server/webhookReceiver.js';
import { waitFor } from '../../fixtures/waitFor.js';

const UA = 'audit-test/1.0';
const MAGIC = 'magic-link-token-of-the-operator-audit-test';

/**
 * The operator audit through the HTTP API on the full registration (a real engine): each sign-in,
 * management action and refusal leaves exactly one record with who, how, from where, what, on
 * which row and with what result; GET /audit filters and pages them for the operate role only.
 */
describe('operator audit: every sign-in and management action leaves one record', () => {
  let t: MonitoredStore;
  let s: Served;
  let engine: Engine;
  let operate: string;
  let read: string;
  const lines: Array<Record<string, unknown>> = [];

  const signIn = async (username: string, password: string) => postJson(`${s.api}/auth/login`, { username, password }, undefined, { 'user-agent': UA });
  const post = (path: string, body: unknown, token: string) => postJson(`${s.api}${path}`, body, token, { 'user-agent': UA });
  const audit = async (query: string, token = operate) => {
    const r = await getJson(`${s.api}/audit?${query}`, token);
    if (r.status !== 200) throw new Error(`GET /audit?${query}: ${r.status} ${r.text}`);
    return r.body as OperatorAuditPage;
  };
  /** The records of `query` once there are `n` of them (records are written just after the answer). */
  const recordsOf = (query: string, n = 1) =>
    waitFor(async () => {
      const page = await audit(query);
      // The items, not the count: a record committed between the page's two reads is counted before it is listed.
      return page.items.length >= n ? page.items : undefined;
    }, 10_000, `${n} audit record(s) for ${query}`, 20);

  beforeAll(async () => {
    t = openMonitoredStore();
    engine = t.engine({ queues: { default: { concurrency: 2 } } });
    engine.handle('Audit.Works', async () => {});
    await engine.start();
    s = await serve(await t.source(engine), {
      enableManagementEndpoints: true,
      managementUsername: 'operator',
      managementPassword: 'operator-secret',
      magicLinkToken: MAGIC,
      loginRateLimit: false,
      enableOpenApiDocument: true,
      operatorAuditLogger: { info: (fields) => lines.push(fields) },
    });
    operate = (await signIn('operator', 'operator-secret')).body.token as string;
    read = (await signIn('admin', 'admin')).body.token as string;
  });
  afterAll(async () => {
    await s?.close();
    await engine?.stop({ graceMs: 500 });
    await t?.destroy();
  });

  it('sign-ins: success with method and role, failure naming the user it tried, magic link; one record each', async () => {
    const ok = await recordsOf('action=signIn&actor=operator');
    expect(ok).toHaveLength(1);
    expect(ok[0]).toMatchObject({ actor: 'operator', method: 'password', role: 'operate', action: 'signIn', result: 'ok', status: 200, clientAddress: '127.0.0.1', userAgent: UA });
    expect(Date.parse(ok[0]!.atUtc)).toBeGreaterThan(Date.now() - 60_000);
    expect(ok[0]).not.toHaveProperty('targetId');
    expect((await recordsOf('action=signIn&actor=admin'))[0]).toMatchObject({ role: 'read', method: 'password', result: 'ok' });

    expect((await signIn('mallory', 'guess')).status).toBe(401);
    const failed = await recordsOf('action=signIn&actor=mallory');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ method: 'password', result: 'refused', status: 401, message: 'Invalid username or password.' });
    expect(failed[0]).not.toHaveProperty('role');

    expect((await postJson(`${s.api}/auth/magic`, { token: MAGIC })).status).toBe(200);
    expect((await postJson(`${s.api}/auth/magic`, { token: 'wrong' })).status).toBe(401);
    const magic = await recordsOf('action=signIn&actor=magic-link', 2);
    expect(magic.map((r) => [r.method, r.result, r.status, r.role])).toEqual([
      ['magic', 'refused', 401, undefined],
      ['magic', 'ok', 200, 'read'],
    ]);
    // The session's method travels in its JWT (the `method` claim): records made with the token name it.
    const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(claims(operate)).toMatchObject({ sub: 'operator', role: 'operate', method: 'password' });
    const magicToken = (await postJson(`${s.api}/auth/magic`, { token: MAGIC })).body.token as string;
    expect(claims(magicToken)).toMatchObject({ sub: 'magic-link', role: 'read', method: 'magic' });
  });

  it('retry: done (200), refused for the read role (403) and for a row it does not apply to (409): one record each', async () => {
    const failed = await t.seed((db) => insertTask(db, { type: 'Audit.Works', status: 'Failed' }));
    const denied = await post(`/management/tasks/${failed}/retry`, undefined, read);
    expect(denied.status).toBe(403);
    const refused = await recordsOf(`target=${failed}`);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ actor: 'admin', role: 'read', method: 'password', action: 'retry', targetId: failed, result: 'refused', status: 403, userAgent: UA, clientAddress: '127.0.0.1' });

    const done = await post(`/management/tasks/${failed}/retry`, undefined, operate);
    expect(done.status).toBe(200);
    const both = await recordsOf(`target=${failed}`, 2);
    expect(both).toHaveLength(2);
    expect(both[0]).toMatchObject({ actor: 'operator', role: 'operate', method: 'password', action: 'retry', targetId: failed, result: 'ok', status: 200 });

    // A second retry finds the row no longer Failed (Queued, running or Completed): 409.
    const again = await post(`/management/tasks/${failed}/retry`, undefined, operate);
    expect(again.status).toBe(409);
    const three = await recordsOf(`target=${failed}`, 3);
    expect(three).toHaveLength(3);
    expect(three[0]).toMatchObject({ action: 'retry', result: 'refused', status: 409, message: again.body.message });
  });

  it('requeue of a row that is no occurrence: 409, one refused record; an unknown id: 404', async () => {
    const oneShot = await t.seed((db) => insertTask(db, { type: 'Audit.Works', status: 'Failed' }));
    const r = await post(`/management/tasks/${oneShot}/requeue`, undefined, operate);
    expect(r.status).toBe(409);
    const records = await recordsOf(`target=${oneShot}`);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ action: 'requeue', actor: 'operator', result: 'refused', status: 409 });
    const unknown = randomUUID();
    expect((await post(`/management/tasks/${unknown}/requeue`, undefined, operate)).status).toBe(404);
    expect((await recordsOf(`target=${unknown}`))[0]).toMatchObject({ action: 'requeue', result: 'refused', status: 404 });
  });

  it('schedule changes: cancel (200) and resume of a cancelled schedule (409), each recorded on the schedule row', async () => {
    const id = await engine.schedules.upsert({ key: `audit-${randomUUID()}`, type: 'Audit.Works', every: '1h' });
    expect((await post(`/management/tasks/${id}/cancel`, undefined, operate)).status).toBe(200);
    const resume = await post(`/management/tasks/${id}/resume`, undefined, operate);
    expect(resume.status).toBe(409);
    const records = await recordsOf(`target=${id}`, 2);
    expect(records.map((r) => [r.action, r.result, r.status])).toEqual([
      ['resume', 'refused', 409],
      ['cancel', 'ok', 200],
    ]);
  });

  it('a bulk action records its filter, the count it matched, then the counts it reached', async () => {
    const type = `Audit.Bulk.${randomUUID().slice(0, 8)}`;
    engine.handle(type, async () => {});
    await t.seed((db) => {
      for (let i = 0; i < 3; i++) insertTask(db, { type, status: 'Failed' });
    });
    const filter = { statuses: ['Failed'], taskType: type };
    const mismatch = await post('/management/bulk/retry', { filter, expectedCount: 10 }, operate);
    expect(mismatch.status).toBe(409);
    const started = await post('/management/bulk/retry', { filter, expectedCount: 3 }, operate);
    expect(started.status).toBe(200);
    const operationId = started.body.operationId as string;
    const records = await waitFor(async () => {
      const page = await audit('action=bulkRetry');
      const mine = page.items.filter((r) => r.bulk?.filter.taskType === type);
      return mine.length === 2 && mine[0]!.bulk?.state === 'Completed' ? mine : undefined;
    }, 15_000, 'the bulk record with its final counts', 25);
    expect(records[1]).toMatchObject({ action: 'bulkRetry', actor: 'operator', result: 'refused', status: 409, bulk: { filter, expectedCount: 10, count: 3 } });
    expect(records[0]).toMatchObject({
      action: 'bulkRetry',
      result: 'ok',
      status: 200,
      bulk: { filter, expectedCount: 3, count: 3, operationId, state: 'Completed', processed: 3, succeeded: 3, skipped: 0 },
    });
    expect(records[0]).not.toHaveProperty('targetId');
  });

  it('a management call without a session (401) names nobody and is not recorded', async () => {
    const id = randomUUID();
    expect((await postJson(`${s.api}/management/tasks/${id}/cancel`, undefined)).status).toBe(401);
    expect((await post(`/management/tasks/${id}/cancel`, undefined, operate)).status).toBe(404);
    const records = await recordsOf(`target=${id}`);
    expect(records.map((r) => [r.actor, r.status])).toEqual([['operator', 404]]);
  });

  it('the client address is the one the trusted-proxy rules give (a loopback proxy forwarding for a client)', async () => {
    const r = await postJson(`${s.api}/auth/login`, { username: 'forwarded-user', password: 'x' }, undefined, { 'x-forwarded-for': '198.51.100.9, 203.0.113.7' });
    expect(r.status).toBe(401);
    // Read from the right: 203.0.113.7 is the first address that is not a trusted proxy.
    expect((await recordsOf('actor=forwarded-user'))[0]).toMatchObject({ clientAddress: '203.0.113.7', result: 'refused' });
  });

  it('each record also goes out as a structured log line', async () => {
    await recordsOf('action=signIn&actor=mallory');
    await waitFor(() => lines.some((l) => (l.operatorAudit as OperatorAuditEntry | undefined)?.actor === 'mallory'), 5_000, 'the log line');
    const line = lines.find((l) => (l.operatorAudit as OperatorAuditEntry | undefined)?.actor === 'mallory')!.operatorAudit as OperatorAuditEntry;
    expect(line).toMatchObject({ action: 'signIn', result: 'refused', status: 401, method: 'password' });
    expect(line.id).toBeGreaterThan(0);
  });

  it('GET /audit: the operate role only; filters by actor, action, target, result and time; pages newest first', async () => {
    expect((await getJson(`${s.api}/audit`, read)).status).toBe(403);
    expect((await getJson(`${s.api}/audit`)).status).toBe(401);
    const all = await audit('pageSize=500');
    expect(all.totalCount).toBe(all.items.length);
    const ids = all.items.map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));

    const paged = await audit('pageSize=2&page=2');
    expect(paged).toMatchObject({ page: 2, pageSize: 2, totalCount: all.totalCount, totalPages: Math.ceil(all.totalCount / 2) });
    expect(paged.items.map((r) => r.id)).toEqual(ids.slice(2, 4));

    const refusedRetries = await audit('action=retry&result=refused');
    expect(refusedRetries.items.length).toBeGreaterThanOrEqual(2);
    expect(refusedRetries.items.every((r) => r.action === 'retry' && r.result === 'refused')).toBe(true);
    expect((await audit('actor=nobody-at-all')).totalCount).toBe(0);

    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await audit(`from=${future}`)).totalCount).toBe(0);
    expect((await audit(`to=${future}`)).totalCount).toBe(all.totalCount);
    expect((await audit('to=2000-01-01T00:00:00Z')).totalCount).toBe(0);
  });

  it('GET /audit: a bad filter is a problem naming it', async () => {
    const r = await getJson(`${s.api}/audit?action=delete&from=yesterday&result=maybe`, operate);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(Object.keys(r.body.errors).sort()).toEqual(['action', 'from', 'result']);
    const backwards = await getJson(`${s.api}/audit?from=2026-01-02&to=2026-01-01`, operate);
    expect(backwards.status).toBe(400);
    expect(backwards.body.errors).toHaveProperty('to');
  });

  it('the API offers no way to change or delete a record', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const r = await fetch(`${s.api}/audit`, { method, headers: { authorization: `Bearer ${operate}` } });
      expect(r.status, method).toBe(404);
    }
  });

  it('the OpenAPI document lists exactly the fields the records carry (after the actions above)', async () => {
    const doc = (await getJson(`${s.baseUrl}/svc-monitoring/openapi/svc-monitoring.json`)).body;
    const documented = (name: string) => Object.keys(doc.components.schemas[name].properties as object).sort();
    const page = await audit('pageSize=500');
    expect(Object.keys(page).sort()).toEqual(documented('OperatorAuditPage'));
    expect([...new Set(page.items.flatMap((r) => Object.keys(r)))].sort()).toEqual(documented('OperatorAuditEntry'));
    const bulk = page.items.find((r) => r.bulk?.state === 'Completed')!.bulk!;
    expect(Object.keys(bulk).sort()).toEqual(Object.keys(doc.components.schemas.OperatorAuditEntry.properties.bulk.properties as object).sort());
  });
});

describe('operator audit: OperatorAction alert rules', () => {
  it('post each record to the webhook; other rules do not', async () => {
    const hook = await webhookReceiver();
    const other = await webhookReceiver();
    try {
      const alerts = [
        { on: 'OperatorAction', name: 'who did what', webhook: { url: hook.url } },
        { on: 'ScheduleHalted', webhook: { url: other.url } },
      ];
      await withServed({ alerts: alerts as never, loginRateLimit: false }, async (s) => {
        expect((await postJson(`${s.api}/auth/login`, { username: 'admin', password: 'wrong' })).status).toBe(401);
        const received = await waitFor(() => hook.received[0], 10_000, 'the OperatorAction message', 20);
        expect(received.json).toMatchObject({
          rule: 'who did what',
          on: 'OperatorAction',
          state: 'recorded',
          count: 1,
          operatorAction: { actor: 'admin', action: 'signIn', method: 'password', result: 'refused', status: 401 },
        });
        expect(received.json.summary).toMatch(/admin signIn: refused \(401\)/);
        expect(other.received.filter((r) => r.json.on === 'OperatorAction')).toEqual([]);
      });
    } finally {
      await hook.close();
      await other.close();
    }
  });
});

describe('operator audit with the managementAuthorization hook', () => {
  it('the hook decides who reads the audit; a management call names the host\'s user', async () => {
    const hook = (req: { headers: Record<string, unknown>; user?: unknown }) => {
      if (req.headers['x-ops'] !== 'yes') return false;
      req.user = { name: 'sso:alice' };
      return true;
    };
    await withServed({ enableAuthentication: false, enableManagementEndpoints: true, managementAuthorization: hook as never }, async (s) => {
      const id = randomUUID();
      const refused = await postJson(`${s.api}/management/tasks/${id}/retry`, undefined);
      expect(refused.status).toBe(403);
      const answered = await postJson(`${s.api}/management/tasks/${id}/retry`, undefined, undefined, { 'x-ops': 'yes' });
      expect(answered.status).not.toBe(403);
      expect((await getJson(`${s.api}/audit`)).status).toBe(403);
      const page = await waitFor(async () => {
        const r = await getJson(`${s.api}/audit?target=${id}`, undefined, { 'x-ops': 'yes' });
        return r.status === 200 && (r.body as OperatorAuditPage).totalCount === 2 ? (r.body as OperatorAuditPage) : undefined;
      }, 10_000, 'both records', 20);
      expect(page.items.map((r) => [r.actor, r.result, r.status])).toEqual([
        ['sso:alice', answered.status >= 500 ? 'error' : 'refused', answered.status],
        ['anonymous', 'refused', 403],
      ]);
    });
  });
});

describe('operator audit and the login limit', () => {
  it('a sign-in the limit refuses (429) checked no credential and is not recorded', async () => {
    const options = { managementUsername: 'operator', managementPassword: 'operator-secret', loginRateLimit: { limit: 2, windowMs: 60_000 } };
    await withServed(options, async (s) => {
      expect((await postJson(`${s.api}/auth/login`, { username: 'guesser', password: 'one' })).status).toBe(401);
      const operate = (await postJson(`${s.api}/auth/login`, { username: 'operator', password: 'operator-secret' })).body.token as string;
      expect((await postJson(`${s.api}/auth/login`, { username: 'guesser', password: 'two' })).status).toBe(429);
      const page = await waitFor(async () => {
        const r = (await getJson(`${s.api}/audit`, operate)).body as OperatorAuditPage;
        return r.totalCount >= 2 ? r : undefined;
      }, 10_000, 'the two sign-in records', 20);
      expect(page.items.map((r) => [r.actor, r.status])).toEqual([
        ['operator', 200],
        ['guesser', 401],
      ]);
    });
  });
});
