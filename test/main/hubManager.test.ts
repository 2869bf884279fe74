import { beforeAll, describe, expect, it } from 'vitest';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { useConsoleSuite } from '../fixtures/main/consoleSuite.js';
import { waitFor } from '../fixtures/waitFor.js';
import { startFullHost, svcEvent, type FullHost } from '../fixtures/main/fullHost.js';

describe('HubManager and FailureNotifier over the real SignalR-protocol hub (two environments)', () => {
  const suite = useConsoleSuite({
    start: async (dir) => ({
      alpha: await startFullHost(dir, { username: 'ops', password: 'alpha-pw', jwtSecret: 'a'.repeat(64) }),
      beta: await startFullHost(dir, { username: 'ops', password: 'beta-pw', jwtSecret: 'b'.repeat(64) }),
    }),
    userData: 'ud',
    console: { safeStorage: aesSafeStorage('gnome_libsecret'), burstWindowMs: 400, hub: { reconnectDelaysMs: [0, 100, 300], retryAfterFailureMs: 500 } },
  });
  let alphaId: string;
  let betaId: string;

  beforeAll(async () => {
    alphaId = (await suite.services.addEnvironment({ name: 'Alpha', baseUrl: suite.hosts.alpha.baseUrl, colour: '#2563eb', isProduction: false })).id;
    betaId = (await suite.services.addEnvironment({ name: 'Production', baseUrl: suite.hosts.beta.baseUrl, colour: '#dc2626', isProduction: true })).id;
  });

  it('opens one hub connection per logged-in environment and none before login', async () => {
    expect(suite.services.hub.state(alphaId).state).toBe('idle');
    await suite.services.requireSession(alphaId).loginWithPassword('ops', 'alpha-pw', false);
    await suite.services.requireSession(betaId).loginWithPassword('ops', 'beta-pw', false);
    await suite.services.hub.whenState(alphaId, 'connected');
    await suite.services.hub.whenState(betaId, 'connected');
    expect(suite.services.environments().map((e) => e.live)).toEqual(['connected', 'connected']);
  });

  it('forwards events per environment and coalesces failures into one notification per burst and environment', async () => {
    suite.hosts.alpha.emit(svcEvent('Completed'));
    for (let i = 0; i < 4; i++) suite.hosts.alpha.emit(svcEvent('Failed'));
    // A task whose last attempt timed out: Timeout, then Failed, for the same task.
    const timedOut = svcEvent('Timeout', 'Reports.Nightly');
    suite.hosts.beta.emit(timedOut);
    suite.hosts.beta.emit({ ...timedOut, kind: 'Failed', severity: 'Error', message: 'Task failed: timed out' });
    await waitFor(() => suite.events.length >= 7, 10_000, 'seven events', 25);
    expect(suite.events.filter((r) => r.env === alphaId).map((r) => r.event.kind)).toEqual(['Completed', 'Failed', 'Failed', 'Failed', 'Failed']);
    expect(suite.events.filter((r) => r.env === betaId).map((r) => r.event.kind)).toEqual(['Timeout', 'Failed']);
    await waitFor(() => suite.notifications.length >= 2, 10_000, 'two notifications', 25);
    // Every event has arrived; closing any burst still open would show what it holds now.
    suite.services.notifier.flushAll();
    expect(suite.notifications.map((x) => x.title).sort()).toEqual(['4 tasks failed in Alpha', '⚠ PRODUCTION · Task timed out in Production']);
    expect(suite.notifications.find((x) => x.environmentId === betaId)!.target).toMatchObject({ kind: 'task', environmentId: betaId });
    expect(suite.badge.at(-1)).toBe(5);
    expect(suite.services.inbox.list().length).toBe(5);
  });

  /** A host issuing 2-second tokens, added as `name`, logged in to (hub connected) for `body`, closed after. */
  async function withShortLivedEnvironment(name: string, rememberPassword: boolean, body: (id: string, short: FullHost) => Promise<void>): Promise<void> {
    const short = await startFullHost(suite.dir, { username: 'ops', password: 'short-pw', jwtExpirationHours: 2 / 3600 });
    try {
      const id = (await suite.services.addEnvironment({ name, baseUrl: short.baseUrl, colour: '#16a34a', isProduction: false })).id;
      await suite.services.requireSession(id).loginWithPassword('ops', 'short-pw', rememberPassword);
      await suite.services.hub.whenState(id, 'connected');
      await body(id, short);
    } finally {
      await short.close();
    }
  }

  it('re-authenticates the hub on Close "Token expired" with a remembered password and keeps receiving', async () => {
    await withShortLivedEnvironment('Short', true, async (id, short) => {
      const states: string[] = [];
      suite.services.onEvent((e) => {
        if (e.type !== 'status' || e.environment.id !== id) return;
        states.push(`${e.environment.hub.state}:${e.environment.hub.message ?? ''}`);
      });
      const firstExpiry = suite.services.requireSession(id).view().expiresAt;
      await waitFor(() => states.includes('reconnecting:Token expired') && suite.services.hub.state(id).state === 'connected', 8_000, 'a reconnect after the token expired', 25);
      expect(suite.services.requireSession(id).view().expiresAt).not.toBe(firstExpiry);
      expect(suite.services.requireSession(id).view().auth).toBe('authenticated');
      const before = suite.events.length;
      short.emit(svcEvent('Completed'));
      await waitFor(() => suite.events.slice(before).some((r) => r.env === id), 10_000, 'event after re-authentication', 25);
    });
  });

  it('without a remembered password, expiry ends in a re-login prompt and the hub stops', async () => {
    await withShortLivedEnvironment('Short 2', false, async (id) => {
      await waitFor(() => suite.services.requireSession(id).view().auth === 'relogin-required', 8_000, 're-login prompt', 25);
      await suite.services.hub.whenState(id, 'idle');
      expect(suite.services.environments().find((e) => e.id === id)!.live).toBe('relogin-required');
    });
  });

  it('a server that goes away shows reconnecting, then a sticky error', async () => {
    const gone = await startFullHost(suite.dir, { username: 'ops', password: 'pw' });
    const id = (await suite.services.addEnvironment({ name: 'Gone', baseUrl: gone.baseUrl, colour: '#7c3aed', isProduction: false })).id;
    await suite.services.requireSession(id).loginWithPassword('ops', 'pw', false);
    await suite.services.hub.whenState(id, 'connected');
    const states: string[] = [];
    const errors: Array<string | undefined> = [];
    suite.services.onEvent((e) => {
      if (e.type !== 'status' || e.environment.id !== id) return;
      states.push(e.environment.live);
      if (e.environment.live === 'error') errors.push(e.environment.statusMessage);
    });
    await gone.close();
    await waitFor(() => suite.services.hub.state(id).state === 'error', 10_000, 'error after reconnect attempts', 25);
    expect(states).toContain('reconnecting');
    // The client gave up reconnecting (it closes without an error of its own): the console says so.
    expect(errors[0]).toBe('The live connection closed');
  });
});
