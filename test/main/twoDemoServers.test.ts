import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleServices } from '../../src/main/ConsoleServices.js';
import type { EnvironmentStatusView } from '../../src/main/environmentStatus.js';
import type { FailureNotification } from '../../src/main/notifications/FailureNotifier.js';
import type { SvcEvent } from '../../server/src/contracts/events.js';
import { aesSafeStorage } from './support/aesSafeStorage.js';
import { demoCliAvailable, startDemo, type DemoServer } from './support/demoCli.js';
import { makeTempDir } from './support/tempDir.js';

const wait = async (what: string, check: () => boolean, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe.skipIf(!demoCliAvailable())('main services against two real demo servers (two environments)', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let staging: DemoServer;
  let production: DemoServer;
  let services: ConsoleServices;
  const safeStorage = aesSafeStorage('gnome_libsecret');
  const notifications: FailureNotification[] = [];
  const badge: number[] = [];
  const events: Array<{ env: string; event: SvcEvent }> = [];
  let s: EnvironmentStatusView;
  let p: EnvironmentStatusView;

  beforeAll(async () => {
    ({ dir, cleanup } = await makeTempDir());
    [staging, production] = await Promise.all([startDemo(dir), startDemo(dir)]);
    services = await ConsoleServices.create({
      userDataDir: join(dir, 'user-data'),
      safeStorage,
      notifications: { show: (n) => notifications.push(n) },
      badge: { setUnreadCount: (c) => badge.push(c) },
      burstWindowMs: 700,
      hub: { reconnectDelaysMs: [0, 200, 500], retryAfterFailureMs: 1_000 },
    });
    services.onEvent((e) => e.type === 'svcEvent' && events.push({ env: e.environmentId, event: e.event }));
    s = await services.addEnvironment({ name: 'Staging', baseUrl: staging.baseUrl, colour: '#2563eb', isProduction: false });
    p = await services.addEnvironment({ name: 'Production', baseUrl: production.baseUrl, colour: '#dc2626', isProduction: true });
  }, 120_000);

  afterAll(async () => {
    await services?.dispose();
    await Promise.all([staging?.stop(), production?.stop()]);
    await cleanup?.();
  });

  it('logs in to each environment and opens one hub connection each', async () => {
    for (const env of [s, p]) {
      expect(services.sessionView(env.id)).toMatchObject({ auth: 'logged-out', requireAuthentication: true });
      await services.loginWithPassword(env.id, 'admin', 'admin', false);
      await services.hub.whenState(env.id, 'connected', 15_000);
    }
    expect(services.environments().map((e) => e.live)).toEqual(['connected', 'connected']);
  });

  it('proxies API calls per environment with the session token', async () => {
    const [a, b] = await Promise.all([services.call(s.id, 'config.get', {}), services.call(p.id, 'dashboard.overview', { range: 'Today' })]);
    expect(a).toMatchObject({ signalRHubPath: '/svc-monitoring/hub', requireAuthentication: true });
    expect(typeof b.successRate).toBe('number');
    // Each environment's data is its own: the two demo databases differ in ids.
    const [la, lb] = await Promise.all([services.call(s.id, 'tasks.list', { pageSize: 5 }), services.call(p.id, 'tasks.list', { pageSize: 5 })]);
    expect(la.items.length).toBeGreaterThan(0);
    expect(la.items.map((t) => t.id)).not.toEqual(lb.items.map((t) => t.id));
    // Bad params never leave main.
    await expect(services.call(s.id, 'tasks.list', { pageSize: 0 })).rejects.toMatchObject({ code: 'invalid-arguments' });
  });

  it('receives live events from both servers and turns failures into coalesced notifications and a tray count', async () => {
    const failedIds = [await staging.dispatch('failing'), await production.dispatch('failing'), await production.dispatch('failing')];
    await wait('the dispatched failures', () => failedIds.every((id) => services.inboxList().some((i) => i.taskId === id)), 20_000);
    await wait('failures from both environments', () => {
      const envs = new Set(services.inboxList().map((i) => i.environmentId));
      return envs.has(s.id) && envs.has(p.id);
    }, 45_000);
    expect(events.some((e) => e.env === s.id && e.event.kind === 'Completed')).toBe(true);
    services.notifier.flushAll();
    const inbox = services.inboxList();
    for (const env of [s, p]) {
      const mine = notifications.filter((n) => n.environmentId === env.id);
      expect(mine.length).toBeGreaterThan(0);
      for (const n of mine) expect(n.count).toBe(inbox.filter((i) => i.burstId === n.burstId).length);
    }
    // Never more notifications than failures, and production is flagged.
    expect(notifications.length).toBeLessThanOrEqual(inbox.length);
    expect(notifications.filter((n) => n.environmentId === p.id).every((n) => n.isProduction && n.title.includes('Production'))).toBe(true);
    // Every failure event received is in the inbox; each names a real task of its server.
    const failed = events.filter((e) => e.event.kind === 'Failed' || e.event.kind === 'Timeout');
    expect(inbox.length).toBe(failed.length);
    const one = inbox.find((i) => i.environmentId === p.id)!;
    const detail = await services.call(p.id, 'tasks.get', { id: one.taskId });
    expect(detail.id).toBe(one.taskId);
    // Tray badge = unread failures; reading them clears it.
    expect(badge.at(-1)).toBe(services.inbox.unreadCount());
    services.markInboxRead(undefined, { environmentId: s.id });
    expect(badge.at(-1)).toBe(services.inboxList({ unreadOnly: true }).length);
    expect(services.inboxList({ unreadOnly: true }).every((i) => i.environmentId !== s.id)).toBe(true);
  }, 60_000);

  it('validates the stored token at the next start (no new login) and reconnects its hub', async () => {
    const next = await ConsoleServices.create({ userDataDir: join(dir, 'user-data'), safeStorage, notifications: { show: () => undefined }, badge: { setUnreadCount: () => undefined } });
    try {
      await next.start();
      expect(next.environments().map((e) => e.session.auth)).toEqual(['authenticated', 'authenticated']);
      await next.hub.whenState(s.id, 'connected', 15_000);
    } finally {
      await next.dispose();
    }
  });

  it('logging out stops the hub connection and forgets the token', async () => {
    await services.logout(s.id);
    await services.hub.whenState(s.id, 'idle');
    expect(await services.vault.get(s.id)).toBeUndefined();
    await expect(services.call(s.id, 'tasks.counts', {})).rejects.toMatchObject({ code: 'login-required' });
  });
});
