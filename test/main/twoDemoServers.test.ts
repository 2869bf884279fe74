import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EnvironmentStatusView } from '../../src/shared/environmentStatus.js';
import { startDemo } from '../fixtures/demoProcess.js';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { createConsole, useConsoleSuite } from '../fixtures/main/consoleSuite.js';
import { waitFor } from '../fixtures/waitFor.js';

describe('main services against two real demo servers (two environments)', () => {
  const safeStorage = aesSafeStorage('gnome_libsecret');
  const suite = useConsoleSuite({
    start: async (dir) => {
      const [staging, production] = await Promise.all([startDemo(dir), startDemo(dir)]);
      return { staging, production };
    },
    userData: 'user-data',
    console: { safeStorage, burstWindowMs: 700, hub: { reconnectDelaysMs: [0, 200, 500], retryAfterFailureMs: 1_000 } },
    timeoutMs: 120_000,
  });
  let s: EnvironmentStatusView;
  let p: EnvironmentStatusView;

  beforeAll(async () => {
    s = await suite.services.addEnvironment({ name: 'Staging', baseUrl: suite.hosts.staging.baseUrl, colour: '#2563eb', isProduction: false });
    p = await suite.services.addEnvironment({ name: 'Production', baseUrl: suite.hosts.production.baseUrl, colour: '#dc2626', isProduction: true });
  });

  it('logs in to each environment and opens one hub connection each', async () => {
    for (const env of [s, p]) {
      expect(suite.services.requireSession(env.id).view()).toMatchObject({ auth: 'logged-out', requireAuthentication: true });
      await suite.services.requireSession(env.id).loginWithPassword('admin', 'admin', false);
      await suite.services.hub.whenState(env.id, 'connected', 15_000);
    }
    expect(suite.services.environments().map((e) => e.live)).toEqual(['connected', 'connected']);
  });

  it('proxies API calls per environment with the session token', async () => {
    const [a, b] = await Promise.all([suite.services.proxy.call(s.id, 'config.get', {}), suite.services.proxy.call(p.id, 'dashboard.overview', { range: 'Today' })]);
    expect(a).toMatchObject({ signalRHubPath: '/svc-monitoring/hub', requireAuthentication: true });
    expect(typeof b.successRate).toBe('number');
    // Each environment's data is its own: the two demo databases differ in ids.
    const [la, lb] = await Promise.all([suite.services.proxy.call(s.id, 'tasks.list', { pageSize: 5 }), suite.services.proxy.call(p.id, 'tasks.list', { pageSize: 5 })]);
    expect(la.items.length).toBeGreaterThan(0);
    expect(la.items.map((t) => t.id)).not.toEqual(lb.items.map((t) => t.id));
    // Bad params never leave main.
    await expect(suite.services.proxy.call(s.id, 'tasks.list', { pageSize: 0 })).rejects.toMatchObject({ code: 'invalid-arguments' });
  });

  it('receives live events from both servers and turns failures into coalesced notifications and a tray count', async () => {
    const failedIds = [await suite.hosts.staging.dispatch('failing'), await suite.hosts.production.dispatch('failing'), await suite.hosts.production.dispatch('failing')];
    await waitFor(() => failedIds.every((id) => suite.services.inbox.list().some((i) => i.taskId === id)), 20_000, 'the dispatched failures', 25);
    await waitFor(
      () => {
      const envs = new Set(suite.services.inbox.list().map((i) => i.environmentId));
      return envs.has(s.id) && envs.has(p.id);
    },
      45_000,
      'failures from both environments',
      25,
    );
    expect(suite.events.some((e) => e.env === s.id && e.event.kind === 'Completed')).toBe(true);
    suite.services.notifier.flushAll();
    const inbox = suite.services.inbox.list();
    for (const env of [s, p]) {
      const mine = suite.notifications.filter((n) => n.environmentId === env.id);
      expect(mine.length).toBeGreaterThan(0);
      for (const n of mine) expect(n.count).toBe(inbox.filter((i) => i.burstId === n.burstId).length);
    }
    // Never more notifications than failures, and production is flagged.
    expect(suite.notifications.length).toBeLessThanOrEqual(inbox.length);
    expect(suite.notifications.filter((n) => n.environmentId === p.id).every((n) => n.isProduction && n.title.includes('Production'))).toBe(true);
    // Every task failure received is one inbox item (a timed-out last attempt is one with its
    // Failed; a timed-out attempt that is retried is none); each names a real task of its server.
    const failed = suite.events.filter((e) => e.event.kind === 'Failed');
    expect(inbox.length).toBe(failed.length);
    const one = inbox.find((i) => i.environmentId === p.id)!;
    const detail = await suite.services.proxy.call(p.id, 'tasks.get', { id: one.taskId });
    expect(detail.id).toBe(one.taskId);
    // Tray badge = unread failures; reading them clears it.
    expect(suite.badge.at(-1)).toBe(suite.services.inbox.unreadCount());
    suite.services.inbox.markRead(undefined, { environmentId: s.id });
    expect(suite.badge.at(-1)).toBe(suite.services.inbox.list({ unreadOnly: true }).length);
    expect(suite.services.inbox.list({ unreadOnly: true }).every((i) => i.environmentId !== s.id)).toBe(true);
  }, 60_000);

  it('validates the stored token at the next start (no new login) and reconnects its hub', async () => {
    const next = (await createConsole(join(suite.dir, 'user-data'), { safeStorage })).services;
    try {
      await next.start();
      expect(next.environments().map((e) => e.session.auth)).toEqual(['authenticated', 'authenticated']);
      await next.hub.whenState(s.id, 'connected', 15_000);
    } finally {
      await next.dispose();
    }
  });

  it('logging out stops the hub connection and forgets the token', async () => {
    await suite.services.requireSession(s.id).logout();
    await suite.services.hub.whenState(s.id, 'idle');
    expect(await suite.services.vault.get(s.id)).toBeUndefined();
    await expect(suite.services.proxy.call(s.id, 'tasks.counts', {})).rejects.toMatchObject({ code: 'login-required' });
  });
});
