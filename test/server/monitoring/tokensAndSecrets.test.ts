// @backends sqlite — reads no stored data: HTTP, authentication, network and hub transport behaviour, the same over any store.
import jwt from 'jsonwebtoken';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMonitoring } from '../../../server/src/monitoring/createMonitoring.js';
import { openDatabase } from '../../../server/src/storage/sqlite/connection/openDatabase.js';
import { runCli, startCli } from '../../fixtures/server/cliProcess.js';
import { getJson, postJson, createTempDatabase, withServed } from '../../fixtures/server/servedMonitoring.js';
import { CLIENT, PROXY, httpFrom, serveWithHub } from '../../fixtures/server/fromAddress.js';

const SECRET = 'security-test-secret-0123456789abcdef';
const ISS = 'Svc.Monitor.Api';
const RS = '\u001e';

describe('tokens', () => {
  it('a genuine token without exp is refused on the API, by /auth/validate and by the hub', async () => {
    const eternal = jwt.sign({ sub: 'admin', role: 'read' }, SECRET, { algorithm: 'HS256', issuer: ISS, audience: ISS });
    const s = await serveWithHub({ jwtSecret: SECRET });
    try {
      const r = await getJson(`${s.api}/tasks`, eternal);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/invalid_token/);
      expect((await postJson(`${s.api}/auth/validate`, { token: eternal })).status).toBe(401);
      const neg = await fetch(`${s.base}/hub/negotiate?negotiateVersion=1`, { method: 'POST', headers: { authorization: `Bearer ${eternal}` } });
      expect(neg.status).toBe(401);
      // The same claims with an exp pass.
      const bounded = jwt.sign({ sub: 'admin', role: 'read' }, SECRET, { algorithm: 'HS256', issuer: ISS, audience: ISS, expiresIn: 600 });
      expect((await getJson(`${s.api}/tasks`, bounded)).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('a poll on a closed long-polling connection needs the same authentication as any hub request', async () => {
    const s = await serveWithHub({ jwtSecret: SECRET, loginRateLimit: false });
    try {
      const token = (await postJson(`${s.api}/auth/login`, { username: 'admin', password: 'admin' })).body.token as string;
      const auth = { authorization: `Bearer ${token}` };
      const neg = (await (await fetch(`${s.base}/hub/negotiate?negotiateVersion=1`, { method: 'POST', headers: auth })).json()) as { connectionToken: string };
      const url = `${s.base}/hub?id=${neg.connectionToken}`;
      expect((await fetch(url, { headers: auth })).status).toBe(200);
      await fetch(url, { method: 'POST', headers: auth, body: `{"protocol":"json","version":1}${RS}` });
      expect((await fetch(url, { method: 'DELETE', headers: auth })).status).toBe(202);
      // Retired now: without a token, or with a forged one, nothing is answered but 401.
      const anonymous = await fetch(url);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/Bearer/);
      const forged = jwt.sign({ sub: 'admin', role: 'read' }, 'not-the-secret-not-the-secret-0123', { algorithm: 'HS256', issuer: ISS, audience: ISS, expiresIn: 600 });
      expect((await fetch(url, { headers: { authorization: `Bearer ${forged}` } })).status).toBe(401);
      // The owner's token still drains it: what was queued (the handshake answer), then 204.
      const drained = await fetch(url, { headers: auth });
      expect(drained.status).toBe(200);
      expect(await drained.text()).toBe(`{}${RS}`);
      expect((await fetch(url, { headers: auth })).status).toBe(204);
    } finally {
      await s.close();
    }
  });
});

describe('credential options', () => {
  const quiet = { info: () => undefined, warn: () => undefined };
  it.each([
    [{ magicLinkToken: 'short-magic-token' }, 'magicLinkToken'],
    [{ magicLinkToken: '' }, 'magicLinkToken'],
    [{ password: '' }, 'password'],
    [{ username: '' }, 'username'],
    [{ jwtSecret: '' }, 'jwtSecret'],
    [{ managementPassword: '' }, 'managementPassword'],
    [{ managementUsername: '' }, 'managementUsername'],
    [{ trustedProxies: ['proxy.internal'] }, 'trustedProxies'],
    [{ loginRateLimit: { limit: 5, windowMs: 1000, maxClients: 0 } }, 'loginRateLimit.maxClients'],
  ])('%j fails at startup naming the option', (opts, name) => {
    const t = createTempDatabase();
    try {
      expect(() => createMonitoring({ storage: { db: t.db } }, { logger: quiet, ...(opts as object) })).toThrow(new RegExp(`"${name}"`));
    } finally {
      t.cleanup();
    }
  });

  it('a 32-character magic-link token is accepted', async () => {
    await withServed({ magicLinkToken: 'm'.repeat(32), loginRateLimit: false }, async (s) => {
      expect((await postJson(`${s.api}/auth/magic`, { token: 'm'.repeat(32) })).status).toBe(200);
    });
  });
});

describe('impossible dates', () => {
  it.each(['2024-02-30', '2023-02-29', '2024-04-31T10:00:00Z', '2024-00-10', '2024-13-01'])('createdAfter=%s → 400 naming the parameter', async (date) => {
    await withServed({ enableAuthentication: false }, async (s) => {
      const r = await getJson(`${s.api}/tasks?createdAfter=${date}`);
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body)).toContain('createdAfter');
    });
  });

  it('real dates, 29 February of a leap year included, pass', async () => {
    await withServed({ enableAuthentication: false }, async (s) => {
      for (const date of ['2024-02-29', '2024-01-31T23:59:59Z', '2023-12-31']) {
        expect((await getJson(`${s.api}/tasks?createdAfter=${date}`)).status, date).toBe(200);
      }
    });
  });
});

describe('the CLI', () => {
  it('reads SVC_MONITOR_TRUSTED_PROXIES, and warns when a secret is passed as a flag', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-sec-cli-'));
    const file = join(dir, 'tasks.db');
    openDatabase({ file }).close();
    const app = await startCli(['serve', '--db', file, '--port', '0', '--jwt-secret', 's'.repeat(40), '--password', 'flag-password'], {
      SVC_MONITOR_TRUSTED_PROXIES: PROXY,
      SVC_MONITOR_ALLOWED_IP_ADDRESSES: '198.51.100.7',
    });
    try {
      expect(app.output()).toMatch(/--jwt-secret[^\n]*visible[^\n]*SVC_MONITOR_JWT_SECRET/);
      expect(app.output()).toMatch(/--password[^\n]*SVC_MONITOR_PASSWORD/);
      const config = `${app.baseUrl}/svc-monitoring/api/config`;
      const xff = { 'x-forwarded-for': '198.51.100.7' };
      expect((await httpFrom(PROXY, config, { headers: xff })).status).toBe(200);
      // 127.0.0.3 is loopback but not in the configured list: its header is not believed.
      expect((await httpFrom(CLIENT, config, { headers: xff })).status).toBe(403);
    } finally {
      app.child.kill('SIGKILL');
      await app.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--trusted-proxies is validated, naming the option; no warning without secret flags', async () => {
    const r = await runCli(['serve', '--db', '/nonexistent.db', '--trusted-proxies', '10.0.0.0/40']);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/visible/);
    const dir = mkdtempSync(join(tmpdir(), 'svc-sec-cli-'));
    const file = join(dir, 'tasks.db');
    openDatabase({ file }).close();
    try {
      const bad = await runCli(['serve', '--db', file, '--trusted-proxies', '10.0.0.0/40']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/"trustedProxies"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
