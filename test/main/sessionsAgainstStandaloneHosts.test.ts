import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EnvironmentStatusView } from '../../src/shared/environmentStatus.js';
import { createIpcDispatcher } from '../../src/main/ipc/ipcDispatcher.js';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { createConsole, useConsoleSuite } from '../fixtures/main/consoleSuite.js';
import { waitFor } from '../fixtures/waitFor.js';
import { startStandaloneHost, type MonitoringHost } from '../fixtures/main/monitoringHost.js';
import { createTempDir, readAllFiles } from '../fixtures/main/tempDir.js';

describe('sessions and API proxy against two real monitoring hosts (standalone registration)', () => {
  const suite = useConsoleSuite({
    start: async (dir) => ({
      alpha: await startStandaloneHost(dir, { username: 'ops', password: 'alpha-pw', jwtSecret: 'a'.repeat(64), magicLinkToken: 'm'.repeat(40) }),
      // Beta issues 2-second tokens: expiry and re-login happen inside the test.
      beta: await startStandaloneHost(dir, { username: 'ops', password: 'beta-pw', jwtSecret: 'b'.repeat(64), jwtExpirationHours: 2 / 3600, loginRateLimit: false }),
      gamma: await startStandaloneHost(dir, { username: 'ops', password: 'gamma-pw', loginRateLimit: { limit: 3, windowMs: 60_000 } }),
    }),
    userData: 'user-data',
    console: { safeStorage: aesSafeStorage('gnome_libsecret'), session: { renewBeforeMs: 500 }, hub: { retryAfterFailureMs: 60_000 } },
  });
  let a: EnvironmentStatusView;
  let b: EnvironmentStatusView;
  let c: EnvironmentStatusView;

  beforeAll(async () => {
    a = await suite.services.addEnvironment({ name: 'Alpha', baseUrl: suite.hosts.alpha.baseUrl, colour: '#2563eb', isProduction: false });
    b = await suite.services.addEnvironment({ name: 'Beta Prod', baseUrl: suite.hosts.beta.baseUrl, colour: '#dc2626', isProduction: true });
    c = await suite.services.addEnvironment({ name: 'Gamma', baseUrl: suite.hosts.gamma.baseUrl, colour: '#16a34a', isProduction: false });
  });

  it('reads /config at start and asks for a login when nothing is stored', () => {
    for (const id of [a.id, b.id, c.id]) {
      const v = suite.services.requireSession(id).view();
      expect(v).toMatchObject({ auth: 'logged-out', requireAuthentication: true, managementEnabled: false, hubPath: '/svc-monitoring/hub' });
    }
  });

  it('refuses a bad password and reports the 429 wait time', async () => {
    const dispatch = createIpcDispatcher({ services: suite.services, openExternal: async () => undefined });
    const bad = await dispatch('session.loginPassword', [c.id, { username: 'ops', password: 'wrong', remember: false }]);
    expect(bad).toMatchObject({ ok: false, error: { code: 'login-required', status: 401, message: 'Login refused: invalid credentials' } });
    await dispatch('session.loginPassword', [c.id, { username: 'ops', password: 'wrong', remember: false }]);
    await dispatch('session.loginPassword', [c.id, { username: 'ops', password: 'wrong', remember: false }]);
    const limited = await dispatch('session.loginPassword', [c.id, { username: 'ops', password: 'gamma-pw', remember: false }]);
    expect(limited).toMatchObject({ ok: false, error: { status: 429, message: expect.stringMatching(/too many attempts, try again in \d+ s/) } });
    expect(suite.services.requireSession(c.id).view().auth).toBe('logged-out');
  });

  it('logs in per environment, proxies API calls with the token attached in main, and polls where there is no hub', async () => {
    const view = await suite.services.requireSession(a.id).loginWithPassword('ops', 'alpha-pw', false);
    expect(view).toMatchObject({ auth: 'authenticated', username: 'ops', canManage: false });
    const page = await suite.services.proxy.call(a.id, 'tasks.list', { pageSize: 5 });
    expect(page).toMatchObject({ items: [], totalCount: 0, page: 1, pageSize: 5 });
    const counts = await suite.services.proxy.call(a.id, 'tasks.counts', {});
    expect(counts).toEqual({ all: 0, standard: 0, recurring: 0, failed: 0, occurrences: 0 });
    // Beta is not logged in: its calls are refused in main, without a request.
    await expect(suite.services.proxy.call(b.id, 'tasks.counts', {})).rejects.toMatchObject({ code: 'login-required' });
    // A 404 from the server keeps its problem details.
    await expect(suite.services.proxy.call(a.id, 'tasks.get', { id: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'http', status: 404 });
    // Standalone registration: no hub → the environment polls.
    await suite.services.hub.whenState(a.id, 'unavailable');
    expect(suite.services.environments().find((e) => e.id === a.id)?.live).toBe('polling');
    // Management is not enabled on this host: refused in main.
    await expect(suite.services.proxy.call(a.id, 'management.cancel', { id: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('logs in with the magic token (read-only session)', async () => {
    await suite.services.requireSession(a.id).logout();
    const view = await suite.services.requireSession(a.id).loginWithMagicToken('m'.repeat(40));
    expect(view).toMatchObject({ auth: 'authenticated', canManage: false, hasRememberedPassword: false });
    await expect(suite.services.requireSession(b.id).loginWithMagicToken('x'.repeat(40))).rejects.toMatchObject({ message: 'This environment has no magic link configured' });
  });

  it('tracks expiry: without a remembered password the session asks for a re-login when the token expires', async () => {
    const fresh = (await createConsole(join(suite.dir, 'user-data-2'))).services;
    try {
      const env = await fresh.addEnvironment({ name: 'Beta', baseUrl: suite.hosts.beta.baseUrl, colour: '#dc2626', isProduction: true });
      await fresh.requireSession(env.id).loginWithPassword('ops', 'beta-pw', false);
      expect(fresh.requireSession(env.id).view().auth).toBe('authenticated');
      await waitFor(() => fresh.requireSession(env.id).view().auth === 'relogin-required', 6_000, 're-login prompt', 25);
      expect(fresh.requireSession(env.id).view().message).toBe('The session expired');
      expect(fresh.environments()[0]!.live).toBe('relogin-required');
      await expect(fresh.proxy.call(env.id, 'tasks.counts', {})).rejects.toMatchObject({ code: 'login-required' });
    } finally {
      await fresh.dispose();
    }
  });

  it('renews silently with a remembered password, validates the stored token at the next start, and keeps no secret in user-data files', async () => {
    const userData = join(suite.dir, 'user-data-3');
    const safeStorage = aesSafeStorage('gnome_libsecret');
    const first = (await createConsole(userData, { safeStorage, session: { renewBeforeMs: 1_000 } })).services;
    let envId: string;
    try {
      const env = await first.addEnvironment({ name: 'Beta', baseUrl: suite.hosts.beta.baseUrl, colour: '#dc2626', isProduction: true });
      envId = env.id;
      await first.requireSession(env.id).loginWithPassword('ops', 'beta-pw', true);
      const firstExpiry = first.requireSession(env.id).view().expiresAt!;
      await waitFor(() => (first.requireSession(env.id).view().expiresAt ?? '') > firstExpiry, 6_000, 'silent renewal', 25);
      expect(first.requireSession(env.id).view().auth).toBe('authenticated');
      expect(await first.proxy.call(env.id, 'tasks.counts', {})).toMatchObject({ all: 0 });
    } finally {
      await first.dispose();
    }
    const second = (await createConsole(userData, { safeStorage })).services;
    try {
      await second.start();
      const v = second.requireSession(envId!).view();
      expect(v.auth).toBe('authenticated');
      expect(v.hasRememberedPassword).toBe(true);
    } finally {
      await second.dispose();
    }
    for (const f of await readAllFiles(userData)) {
      expect(f.bytes.includes(Buffer.from('beta-pw')), f.path).toBe(false);
      // A JWT is "eyJ<header>.eyJ<payload>": base64 text (the encrypted vault) can hold "eyJ" by chance, never that dot.
      expect(f.bytes.toString('latin1'), `a JWT in ${f.path}`).not.toMatch(/eyJ[A-Za-z0-9_-]+\.eyJ/);
    }
  });
});


describe('environment edits and deep links', () => {
  it('never sends a stored token to a new address: editing the base URL forgets the login', async () => {
    const { dir, cleanup } = await createTempDir();
    const first = await startStandaloneHost(dir, { username: 'ops', password: 'pw-1', loginRateLimit: false });
    const second = await startStandaloneHost(dir, { username: 'ops', password: 'pw-2', loginRateLimit: false });
    const seenBySecond: string[] = [];
    const { services } = await createConsole(join(dir, 'ud'), { safeStorage: aesSafeStorage('gnome_libsecret') });
    try {
      const env = await services.addEnvironment({ name: 'Moving', baseUrl: first.baseUrl, colour: '#123456', isProduction: false });
      await services.requireSession(env.id).loginWithPassword('ops', 'pw-1', true);
      expect(await services.vault.get(env.id)).toMatchObject({ password: 'pw-1' });
      // Watch what reaches the second host: a proxy in front of it would see any bearer.
      const probe = await import('node:http');
      const spy = probe.createServer((req, res) => {
        seenBySecond.push(req.headers.authorization ?? '');
        const target = new URL(req.url ?? '/', second.baseUrl);
        void fetch(target, { method: req.method, headers: { 'content-type': 'application/json' } }).then(async (r) => res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await r.arrayBuffer())));
      });
      await new Promise<void>((r) => spy.listen(0, '127.0.0.1', () => r()));
      const spyUrl = `http://127.0.0.1:${(spy.address() as { port: number }).port}`;
      await services.updateEnvironment(env.id, { baseUrl: spyUrl });
      expect(services.requireSession(env.id).view().auth).toBe('logged-out');
      expect(await services.vault.get(env.id)).toBeUndefined();
      expect(seenBySecond.filter((h) => h !== '')).toEqual([]);
      spy.closeAllConnections();
      await new Promise<void>((r) => spy.close(() => r()));
    } finally {
      await services.dispose();
      await first.close();
      await second.close();
      await cleanup();
    }
  });

  it('opens svc-monitor:// links for a known environment (by name) and refuses others', async () => {
    const { dir, cleanup } = await createTempDir();
    const { services } = await createConsole(dir);
    try {
      const env = await services.addEnvironment({ name: 'Staging EU', baseUrl: 'http://127.0.0.1:9', colour: '#123456', isProduction: false });
      const opened: unknown[] = [];
      services.onEvent((e) => e.type === 'open' && opened.push(e.target));
      const id = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
      expect(services.openDeepLink(`svc-monitor://staging%20eu/tasks/${id}`)).toEqual({ kind: 'task', environmentId: env.id, taskId: id });
      expect(opened).toEqual([{ kind: 'task', environmentId: env.id, taskId: id }]);
      expect(() => services.openDeepLink(`svc-monitor://Nowhere/tasks/${id}`)).toThrow(/no environment named "Nowhere"/);
      expect(() => services.openDeepLink('svc-monitor://Staging%20EU/tasks/1;rm')).toThrow(/task id must be a GUID/);
      expect(opened).toHaveLength(1);
    } finally {
      await services.dispose();
      await cleanup();
    }
  });
});

describe('an environment that is down at start', () => {
  it('shows a sticky error and recovers by itself when the host comes up', async () => {
    const { dir, cleanup } = await createTempDir();
    const { createServer } = await import('node:net');
    // Reserve a port, release it, point the environment at it while nothing listens.
    const port: number = await new Promise((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const { services } = await createConsole(dir, { session: { retryAfterErrorMs: 200 } });
    let host: MonitoringHost | undefined;
    try {
      const env = await services.addEnvironment({ name: 'Late', baseUrl: `http://127.0.0.1:${port}`, colour: '#123456', isProduction: false });
      expect(services.environments()[0]).toMatchObject({ live: 'error', statusMessage: expect.stringMatching(/Cannot reach http:\/\/127\.0\.0\.1:\d+/) });
      host = await startStandaloneHost(dir, {}, port);
      await waitFor(() => services.requireSession(env.id).view().auth === 'logged-out', 5_000, 'the host to come up (logged out)', 25);
    } finally {
      await services.dispose();
      await host?.close();
      await cleanup();
    }
  });
});
