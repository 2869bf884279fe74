// @backends sqlite — reads no stored data: HTTP, authentication, network and hub transport behaviour, the same over any store.
import jwt from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
import { getJson, insertAudit, insertTask, postJson, useServed, withServed, withServers } from '../../fixtures/server/servedMonitoring.js';

const SECRET = 'a-test-secret-that-is-long-enough-for-hs256-0123456789';
const ISS = 'Svc.Monitor.Api';
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('authentication: login, bearer tokens, validate, JWT claims, magic link', () => {
  let taskId: string;
  let scheduleId: string;
  const s = useServed(
    { jwtSecret: SECRET, managementUsername: 'operator', managementPassword: 'op-secret', magicLinkToken: 'magic-token-0123456789-0123456789', loginRateLimit: false },
    (db) => {
      taskId = insertTask(db, { status: 'Queued' });
      insertAudit(db, taskId, 'Queued', Date.now());
      scheduleId = insertTask(db, { status: 'Pending', occurrence_mode: 'Durable', is_recurring: 1, schedule_version: 1, task_key: 'k' });
    },
  );

  const protectedGets = () => [
    '/tasks',
    '/tasks/counts',
    `/tasks/${taskId}`,
    `/tasks/${taskId}/status-audit`,
    `/tasks/${taskId}/runs-audit`,
    `/tasks/${scheduleId}/occurrences`,
    `/tasks/${taskId}/execution-logs`,
    '/dashboard/overview',
    '/dashboard/recent-activity',
    '/queues',
    '/queues/default/tasks',
    '/statistics/success-rate-trend',
    '/statistics/task-types',
    '/statistics/execution-times',
  ];

  async function tokens() {
    const now = Math.floor(Date.now() / 1000);
    const read = (await postJson(`${s.api}/auth/login`, { username: 'admin', password: 'admin' })).body.token as string;
    const operate = (await postJson(`${s.api}/auth/login`, { username: 'operator', password: 'op-secret' })).body.token as string;
    return {
      none: undefined,
      malformed: 'not.a.jwt',
      badSignature: jwt.sign({ sub: 'admin', role: 'read' }, 'another-secret-another-secret-another-secret', { algorithm: 'HS256', issuer: ISS, audience: ISS, expiresIn: 600 }),
      algNone: `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'admin', role: 'operate', iss: ISS, aud: ISS, exp: now + 600 })}.`,
      otherAlg: jwt.sign({ sub: 'admin', role: 'read' }, SECRET, { algorithm: 'HS512', issuer: ISS, audience: ISS, expiresIn: 600 }),
      wrongAudience: jwt.sign({ sub: 'admin', role: 'read' }, SECRET, { algorithm: 'HS256', issuer: ISS, audience: 'Someone.Else', expiresIn: 600 }),
      wrongIssuer: jwt.sign({ sub: 'admin', role: 'read' }, SECRET, { algorithm: 'HS256', issuer: 'Other', audience: ISS, expiresIn: 600 }),
      expired: jwt.sign({ sub: 'admin', role: 'read', exp: now - 60 }, SECRET, { algorithm: 'HS256', issuer: ISS, audience: ISS }),
      read,
      operate,
    };
  }

  it('matrix: every protected endpoint × every kind of credential', async () => {
    const tk = await tokens();
    for (const path of protectedGets()) {
      for (const [kind, token] of Object.entries(tk)) {
        const r = await getJson(`${s.api}${path}`, token);
        if (kind === 'read' || kind === 'operate') {
          expect(r.status, `${kind} ${path}`).toBe(200);
          continue;
        }
        expect(r.status, `${kind} ${path}`).toBe(401);
        expect(r.headers.get('content-type'), path).toMatch(/application\/problem\+json/);
        const www = r.headers.get('www-authenticate') ?? '';
        expect(www.startsWith('Bearer'), `${kind} ${path}`).toBe(true);
        if (kind === 'expired') expect(www).toContain('error="invalid_token"');
        if (kind === 'none') expect(www).toBe('Bearer');
      }
    }
    // POST /auth/validate is protected too.
    for (const [kind, token] of Object.entries(tk)) {
      const r = await postJson(`${s.api}/auth/validate`, {}, token);
      expect(r.status, `validate ${kind}`).toBe(kind === 'read' || kind === 'operate' ? 200 : 401);
    }
  });

  it('login: read credential, operate credential, bad credentials, bad bodies', async () => {
    const read = await postJson(`${s.api}/auth/login`, { username: 'admin', password: 'admin' });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ username: 'admin', canManage: false });
    expect(Date.parse(read.body.expiresAt) - Date.now()).toBeGreaterThan(7.9 * 3600_000);
    const claims = jwt.verify(read.body.token, SECRET, { algorithms: ['HS256'] }) as jwt.JwtPayload;
    expect(claims).toMatchObject({ sub: 'admin', role: 'read', iss: ISS, aud: ISS });
    expect(typeof claims.jti).toBe('string');
    expect(typeof claims.iat).toBe('number');
    const op = await postJson(`${s.api}/auth/login`, { username: 'operator', password: 'op-secret' });
    expect(op.body).toMatchObject({ username: 'operator', canManage: true });
    const bad = await postJson(`${s.api}/auth/login`, { username: 'admin', password: 'nope' });
    expect(bad.status).toBe(401);
    expect(bad.body.status).toBe(401);
    expect((await postJson(`${s.api}/auth/login`, { username: 'operator', password: 'admin' })).status).toBe(401);
    const missing = await postJson(`${s.api}/auth/login`, { username: 'admin' });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toHaveProperty('password');
    expect((await postJson(`${s.api}/auth/login`, '[1,2]')).status).toBe(400);
    expect((await postJson(`${s.api}/auth/login`, '"text"')).status).toBe(400);
  });

  it('validate: bearer or body token, canManage, invalid → 401', async () => {
    const tk = await tokens();
    const viaBearer = await postJson(`${s.api}/auth/validate`, undefined, tk.operate);
    expect(viaBearer.status).toBe(200);
    expect(viaBearer.body).toMatchObject({ isValid: true, username: 'operator', canManage: true });
    expect(typeof viaBearer.body.expiresAt).toBe('string');
    const viaBody = await postJson(`${s.api}/auth/validate`, { token: tk.read });
    expect(viaBody.body).toMatchObject({ isValid: true, username: 'admin', canManage: false });
    const invalid = await postJson(`${s.api}/auth/validate`, { token: tk.expired });
    expect(invalid.status).toBe(401);
    expect(invalid.headers.get('www-authenticate')).toContain('invalid_token');
  });

  it('magic link: POST exchange (no-store, read-only), invalid → 401, GET deprecated form (Deprecation: true)', async () => {
    const ok = await postJson(`${s.api}/auth/magic`, { token: 'magic-token-0123456789-0123456789' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(ok.body).sort()).toEqual(['expiresAt', 'token', 'username']);
    const v = await postJson(`${s.api}/auth/validate`, undefined, ok.body.token);
    expect(v.body.canManage).toBe(false);
    expect((await getJson(`${s.api}/tasks`, ok.body.token)).status).toBe(200);
    const bad = await postJson(`${s.api}/auth/magic`, { token: 'wrong' });
    expect(bad.status).toBe(401);
    expect((await postJson(`${s.api}/auth/magic`, {})).status).toBe(401);
    const get = await getJson(`${s.api}/auth/magic?token=magic-token-0123456789-0123456789`);
    expect(get.status).toBe(200);
    expect(get.headers.get('deprecation')).toBe('true');
    expect(get.headers.get('cache-control')).toBe('no-store');
    expect((await getJson(`${s.api}/auth/magic?token=nope`)).status).toBe(401);
  });
});

describe('magic link not configured, authentication disabled', () => {
  it('magic endpoints answer 404 without a magic token', async () => {
    await withServed({ loginRateLimit: false }, async (s) => {
      expect((await postJson(`${s.api}/auth/magic`, { token: 'x' })).status).toBe(404);
      expect((await getJson(`${s.api}/auth/magic?token=x`)).status).toBe(404);
    });
  });

  it('with enableAuthentication=false every read endpoint answers without a token', async () => {
    await withServed((t) => {
      insertTask(t.db, {});
      return { enableAuthentication: false };
    }, async (s) => {
      expect((await getJson(`${s.api}/config`)).body.requireAuthentication).toBe(false);
      expect((await getJson(`${s.api}/tasks`)).status).toBe(200);
      expect((await getJson(`${s.api}/dashboard/overview`)).status).toBe(200);
      const v = await postJson(`${s.api}/auth/validate`, undefined);
      expect(v.body).toMatchObject({ isValid: true, canManage: false });
    });
  });
});

describe('login rate limit (5 attempts per 15 minutes per client)', () => {
  it('the 6th attempt within the window answers 429 with Retry-After, shared by login and magic', async () => {
    await withServed({ magicLinkToken: 'm'.repeat(32) }, async (s) => {
      for (let i = 0; i < 5; i++) {
        const r = await postJson(`${s.api}/auth/login`, { username: 'admin', password: i === 4 ? 'admin' : 'wrong' });
        expect(r.status).toBe(i === 4 ? 200 : 401);
      }
      const sixth = await postJson(`${s.api}/auth/login`, { username: 'admin', password: 'admin' });
      expect(sixth.status).toBe(429);
      expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(sixth.body.status).toBe(429);
      expect((await postJson(`${s.api}/auth/magic`, { token: 'm'.repeat(32) })).status).toBe(429);
      expect((await getJson(`${s.api}/auth/magic?token=x`)).status).toBe(429);
      // Another client address (X-Forwarded-For) has its own budget.
      const other = await postJson(`${s.api}/auth/login`, { username: 'admin', password: 'admin' }, undefined, { 'x-forwarded-for': '10.1.2.3' });
      expect(other.status).toBe(200);
      // Read endpoints are not limited.
      expect((await getJson(`${s.api}/config`)).status).toBe(200);
    });
  });

  it('a configured budget applies, and false disables it', async () => {
    await withServers([{ loginRateLimit: { limit: 2, windowMs: 60_000 } }, { loginRateLimit: false }], async ([s1, s2]) => {
      const codes1 = [];
      for (let i = 0; i < 3; i++) codes1.push((await postJson(`${s1.api}/auth/login`, { username: 'a', password: 'b' })).status);
      expect(codes1).toEqual([401, 401, 429]);
      const codes2 = [];
      for (let i = 0; i < 8; i++) codes2.push((await postJson(`${s2.api}/auth/login`, { username: 'a', password: 'b' })).status);
      expect(codes2.every((c) => c === 401)).toBe(true);
    });
  });
});
