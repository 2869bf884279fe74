import type { Database } from 'better-sqlite3';
import jwt from 'jsonwebtoken';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MonitoringOptions } from '../../../server/src/monitoring/options.js';
import { insertTask, login, postJson, useServed, withServed } from '../../fixtures/server/servedMonitoring.js';
import { BACKEND } from '../../fixtures/server/monitoredStore.js';

/**
 * Gate order on a standalone registration (disabled → 404, IP → 403, provenance → 403, then
 * the hook alone or a JWT with the operate role): a request that passes every gate reaches the
 * action. Without an engine, a SQLite store answers NotSupported (501); a PostgreSQL store
 * performs the action (any process may), which refuses the test's row with Conflict (409): it is
 * an occurrence of a schedule that does not exist. Either answer proves the gates let it through.
 */
const REACHED = BACKEND === 'postgres' ? { status: 409, body: 'Conflict' } : { status: 501, body: 'NotSupported' };
const orphanOccurrence = (db: Database) =>
  insertTask(db, { status: 'Failed', parent_task_id: randomUUID(), occurrence_mode: 'Durable', nominal_slot_at: Date.now(), run_number: 1 });

describe('management authorization order and browser provenance check', () => {
  let id: string;
  let read: string;
  let operate: string;
  const s = useServed(
    { enableManagementEndpoints: true, managementUsername: 'operator', managementPassword: 'operator-pw', allowedIpAddresses: ['127.0.0.1', '10.0.0.0/8'], loginRateLimit: false },
    (db) => {
      id = orphanOccurrence(db);
    },
  );

  beforeAll(async () => {
    read = await login(s.api);
    operate = await login(s.api, 'operator', 'operator-pw');
  });

  const url = (action = 'requeue', target = id) => `${s.api}/management/tasks/${target}/${action}`;

  it('operate role reaches the action (standalone: 501 NotSupported on SQLite, the action on PostgreSQL)', async () => {
    for (const action of ['requeue', 'resume', 'cancel']) {
      const r = await postJson(url(action), undefined, operate);
      expect(r.status, action).toBe(REACHED.status);
      expect(r.body).toEqual({ status: REACHED.body, message: expect.any(String), taskId: id });
    }
  });

  it('401 without or with an invalid token, 403 with the read role', async () => {
    const none = await postJson(url(), undefined);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await postJson(url(), undefined, 'garbage')).status).toBe(401);
    const r = await postJson(url(), undefined, read);
    expect(r.status).toBe(403);
    expect(r.body.status).toBe(403);
  });

  it('every kind of bad token → 401 on each management action (auth matrix)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    // The server's secret is generated: a correctly-shaped token signed with another secret is a bad signature.
    const other = 'x'.repeat(48);
    const bad = {
      malformed: 'a.b',
      badSignature: jwt.sign({ sub: 'operator', role: 'operate' }, other, { algorithm: 'HS256', issuer: 'Svc.Monitor.Api', audience: 'Svc.Monitor.Api', expiresIn: 60 }),
      algNone: `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'operator', role: 'operate', iss: 'Svc.Monitor.Api', aud: 'Svc.Monitor.Api', exp: now + 60 })}.`,
      expiredOperate: jwt.sign({ sub: 'operator', role: 'operate', exp: now - 5 }, other, { algorithm: 'HS256' }),
    };
    for (const action of ['requeue', 'resume', 'cancel']) {
      for (const [kind, token] of Object.entries(bad)) {
        const r = await postJson(url(action), undefined, token);
        expect(r.status, `${kind} ${action}`).toBe(401);
        expect(r.headers.get('www-authenticate'), kind).toMatch(/^Bearer/);
      }
      expect((await postJson(url(action), undefined, read)).status).toBe(403);
      expect((await postJson(url(action), undefined, operate)).status).toBe(REACHED.status);
    }
  });

  it('IP outside the allow-list → 403 before authentication', async () => {
    const r = await postJson(url(), undefined, operate, { 'x-forwarded-for': '192.168.3.3' });
    expect(r.status).toBe(403);
    const noToken = await postJson(url(), undefined, undefined, { 'x-forwarded-for': '192.168.3.3' });
    expect(noToken.status).toBe(403);
  });

  it('provenance: Sec-Fetch-Site and Origin checked before authorization', async () => {
    const host = new URL(s.baseUrl).host;
    const reached = REACHED.status;
    const cases: [Record<string, string>, number][] = [
      [{ 'sec-fetch-site': 'cross-site' }, 403],
      [{ 'sec-fetch-site': 'same-site' }, reached],
      [{ 'sec-fetch-site': 'same-origin' }, reached],
      [{ 'sec-fetch-site': 'none' }, reached],
      [{ 'sec-fetch-site': 'cross-site', origin: s.baseUrl }, 403],
      [{ origin: 'https://evil.example' }, 403],
      [{ origin: `http://${host}` }, reached],
      [{ origin: `https://${host}` }, 403],
      [{ origin: 'http://127.0.0.1:1' }, 403],
      [{ origin: 'null' }, 403],
      [{}, reached],
    ];
    for (const [headers, code] of cases) {
      const r = await postJson(url(), undefined, operate, headers);
      expect(r.status, JSON.stringify(headers)).toBe(code);
    }
    // Refused by provenance even without a token: provenance comes before authentication.
    expect((await postJson(url(), undefined, undefined, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
  });

  it('bad id → 400 problem after the gates; unknown management path → 404', async () => {
    const r = await postJson(url('requeue', 'nope'), undefined, operate);
    expect(r.status).toBe(400);
    expect(r.body.errors).toHaveProperty('id');
    expect((await postJson(`${s.api}/management/tasks/${id}/explode`, undefined, operate)).status).toBe(404);
  });
});

describe('management disabled, hook, authentication off', () => {
  it('disabled: 404 on any path under /management, even from a refused address', async () => {
    await withServed({ allowedIpAddresses: ['10.0.0.1'] }, async (s) => {
      for (const p of ['/management/tasks/x/requeue', '/management', '/management/anything/else']) {
        const r = await postJson(`${s.api}${p}`, undefined);
        expect(r.status, p).toBe(404);
      }
      const get = await fetch(`${s.api}/management/tasks/x/requeue`);
      expect(get.status).toBe(404);
      expect((await fetch(`${s.api}/config`)).status).toBe(403);
    });
  });

  it('the managementAuthorization hook alone decides', async () => {
    const seen: string[] = [];
    const hooked: MonitoringOptions = {
      enableManagementEndpoints: true,
      managementUsername: 'operator',
      managementPassword: 'pw',
      managementAuthorization: async (req) => {
        seen.push(String(req.headers['x-user']));
        return req.headers['x-user'] === 'boss';
      },
    };
    await withServed(hooked, async (s, t) => {
      const id = await t.seed(orphanOccurrence);
      const operate = await login(s.api, 'operator', 'pw');
      expect((await postJson(`${s.api}/management/tasks/${id}/cancel`, undefined, operate)).status).toBe(403);
      expect((await postJson(`${s.api}/management/tasks/${id}/cancel`, undefined, undefined, { 'x-user': 'boss' })).status).toBe(REACHED.status);
      expect((await postJson(`${s.api}/management/tasks/${id}/cancel`, undefined, undefined, { 'x-user': 'boss', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
      expect(seen).toEqual(['undefined', 'boss']);
    });
  });

  it('authentication off and no hook → 403: nobody can prove the operate role', async () => {
    await withServed({ enableManagementEndpoints: true, enableAuthentication: false }, async (s) => {
      const r = await postJson(`${s.api}/management/tasks/${randomUUID()}/requeue`, undefined);
      expect(r.status).toBe(403);
      expect((await fetch(`${s.api}/config`).then((x) => x.json())).managementEnabled).toBe(true);
    });
  });
});
