import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvcEvent } from '../../server/src/contracts/events.js';
import { ConsoleServices } from '../../src/main/ConsoleServices.js';
import type { FailureNotification } from '../../src/main/notifications/FailureNotifier.js';
import { aesSafeStorage } from './support/aesSafeStorage.js';
import { startFullHost, svcEvent, type FullHost } from './support/fullHost.js';
import { makeTempDir } from './support/tempDir.js';

const wait = async (what: string, check: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('HubManager and FailureNotifier over the real SignalR-protocol hub (two environments)', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let alpha: FullHost;
  let beta: FullHost;
  let services: ConsoleServices;
  const notifications: FailureNotification[] = [];
  const badge: number[] = [];
  const received: Array<{ env: string; event: SvcEvent }> = [];
  let alphaId: string;
  let betaId: string;

  beforeAll(async () => {
    ({ dir, cleanup } = await makeTempDir());
    alpha = await startFullHost(dir, { username: 'ops', password: 'alpha-pw', jwtSecret: 'a'.repeat(64) });
    beta = await startFullHost(dir, { username: 'ops', password: 'beta-pw', jwtSecret: 'b'.repeat(64) });
    services = await ConsoleServices.create({
      userDataDir: join(dir, 'ud'),
      safeStorage: aesSafeStorage('gnome_libsecret'),
      notifications: { show: (x) => notifications.push(x) },
      badge: { setUnreadCount: (c) => badge.push(c) },
      burstWindowMs: 400,
      hub: { reconnectDelaysMs: [0, 100, 300], retryAfterFailureMs: 500 },
    });
    services.onEvent((e) => e.type === 'svcEvent' && received.push({ env: e.environmentId, event: e.event }));
    alphaId = (await services.addEnvironment({ name: 'Alpha', baseUrl: alpha.baseUrl, colour: '#2563eb', isProduction: false })).id;
    betaId = (await services.addEnvironment({ name: 'Production', baseUrl: beta.baseUrl, colour: '#dc2626', isProduction: true })).id;
  });
  afterAll(async () => {
    await services?.dispose();
    await alpha?.close();
    await beta?.close();
    await cleanup?.();
  });

  it('opens one hub connection per logged-in environment and none before login', async () => {
    expect(services.hub.state(alphaId).state).toBe('idle');
    await services.loginWithPassword(alphaId, 'ops', 'alpha-pw', false);
    await services.loginWithPassword(betaId, 'ops', 'beta-pw', false);
    await services.hub.whenState(alphaId, 'connected');
    await services.hub.whenState(betaId, 'connected');
    expect(services.environments().map((e) => e.live)).toEqual(['connected', 'connected']);
  });

  it('forwards events per environment and coalesces failures into one notification per burst and environment', async () => {
    alpha.emit(svcEvent('Completed'));
    for (let i = 0; i < 4; i++) alpha.emit(svcEvent('Failed'));
    beta.emit(svcEvent('Timeout', 'Reports.Nightly'));
    await wait('six events', () => received.length >= 6);
    expect(received.filter((r) => r.env === alphaId).map((r) => r.event.kind)).toEqual(['Completed', 'Failed', 'Failed', 'Failed', 'Failed']);
    expect(received.filter((r) => r.env === betaId).map((r) => r.event.kind)).toEqual(['Timeout']);
    await wait('two notifications', () => notifications.length >= 2);
    await new Promise((r) => setTimeout(r, 500));
    expect(notifications.map((x) => x.title).sort()).toEqual(['4 tasks failed in Alpha', '⚠ PRODUCTION · Task timed out in Production']);
    expect(notifications.find((x) => x.environmentId === betaId)!.target).toMatchObject({ kind: 'task', environmentId: betaId });
    expect(badge.at(-1)).toBe(5);
    expect(services.inboxList().length).toBe(5);
  });

  it('re-authenticates the hub on Close "Token expired" with a remembered password and keeps receiving', async () => {
    const short = await startFullHost(dir, { username: 'ops', password: 'short-pw', jwtExpirationHours: 2 / 3600 });
    try {
      const id = (await services.addEnvironment({ name: 'Short', baseUrl: short.baseUrl, colour: '#16a34a', isProduction: false })).id;
      await services.loginWithPassword(id, 'ops', 'short-pw', true);
      await services.hub.whenState(id, 'connected');
      const states: string[] = [];
      services.onEvent((e) => {
        if (e.type !== 'status' || e.environment.id !== id) return;
        states.push(`${e.environment.hub.state}:${e.environment.hub.message ?? ''}`);
      });
      const firstExpiry = services.sessionView(id).expiresAt;
      await wait('a reconnect after the token expired', () => states.includes('reconnecting:Token expired') && services.hub.state(id).state === 'connected', 8_000);
      expect(services.sessionView(id).expiresAt).not.toBe(firstExpiry);
      expect(services.sessionView(id).auth).toBe('authenticated');
      const before = received.length;
      short.emit(svcEvent('Completed'));
      await wait('event after re-authentication', () => received.slice(before).some((r) => r.env === id));
    } finally {
      await short.close();
    }
  });

  it('without a remembered password, expiry ends in a re-login prompt and the hub stops', async () => {
    const short = await startFullHost(dir, { username: 'ops', password: 'short-pw', jwtExpirationHours: 2 / 3600 });
    try {
      const id = (await services.addEnvironment({ name: 'Short 2', baseUrl: short.baseUrl, colour: '#16a34a', isProduction: false })).id;
      await services.loginWithPassword(id, 'ops', 'short-pw', false);
      await services.hub.whenState(id, 'connected');
      await wait('re-login prompt', () => services.sessionView(id).auth === 'relogin-required', 8_000);
      await services.hub.whenState(id, 'idle');
      expect(services.environments().find((e) => e.id === id)!.live).toBe('relogin-required');
    } finally {
      await short.close();
    }
  });

  it('a server that goes away shows reconnecting, then a sticky error', async () => {
    const gone = await startFullHost(dir, { username: 'ops', password: 'pw' });
    const id = (await services.addEnvironment({ name: 'Gone', baseUrl: gone.baseUrl, colour: '#7c3aed', isProduction: false })).id;
    await services.loginWithPassword(id, 'ops', 'pw', false);
    await services.hub.whenState(id, 'connected');
    const states: string[] = [];
    services.onEvent((e) => e.type === 'status' && e.environment.id === id && states.push(e.environment.live));
    await gone.close();
    await wait('error after reconnect attempts', () => services.hub.state(id).state === 'error', 10_000);
    expect(states).toContain('reconnecting');
    expect(services.environments().find((e) => e.id === id)!.statusMessage).toBeTruthy();
  });
});
