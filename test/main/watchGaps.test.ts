import { afterEach, describe, expect, it } from 'vitest';
import { buildTrayMenuTemplate, trayState, trayTooltip } from '../../src/main/tray/trayMenuTemplate.js';
import { watchConditionOf, WatchGapTracker } from '../../src/main/watch/WatchGapTracker.js';
import { createConsole, type RecordingConsole } from '../fixtures/main/consoleSuite.js';
import { waitFor } from '../fixtures/waitFor.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

describe('not watching: when failures of an environment would go unnoticed', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!();
  });

  it('a connection that is down counts after the grace period; a needed login or polling count at once', async () => {
    const changes: Array<[string, string | undefined]> = [];
    const tracker = new WatchGapTracker({ graceMs: 150, onChange: (id, gap) => changes.push([id, gap]) });
    cleanups.push(async () => tracker.dispose());
    tracker.update('a', watchConditionOf('reconnecting', 'socket closed'));
    expect(tracker.gap('a')).toBeUndefined();
    tracker.update('b', watchConditionOf('relogin-required'));
    tracker.update('c', watchConditionOf('polling', 'no hub on this host'));
    expect(changes).toEqual([
      ['b', 'log in again'],
      ['c', 'only polling: no hub on this host'],
    ]);
    await waitFor(() => changes.some(([id]) => id === 'a'), 5_000, 'the grace period of a', 25);
    expect(tracker.gap('a')).toBe('live connection down: socket closed');
    // Back to connected: the gap ends (and a new outage starts a new grace period).
    tracker.update('a', watchConditionOf('connected'));
    expect(changes.at(-1)).toEqual(['a', undefined]);
    tracker.update('a', watchConditionOf('error', 'refused'));
    expect(tracker.gap('a')).toBeUndefined();
  });

  it('reports the gap even when its timer fires before the clock it reads says the grace period is over', async () => {
    // A wall clock running a little slower than the timers: the first timer ends "early".
    const start = Date.now();
    const now = () => start + Math.floor((Date.now() - start) * 0.9);
    const changes: Array<[string, string | undefined]> = [];
    const tracker = new WatchGapTracker({ graceMs: 100, now, onChange: (id, gap) => changes.push([id, gap]) });
    cleanups.push(async () => tracker.dispose());
    tracker.update('a', watchConditionOf('reconnecting', 'socket closed'));
    await waitFor(() => changes.some(([id]) => id === 'a'), 5_000, 'the gap of a', 25);
    expect(changes).toEqual([['a', 'live connection down: socket closed']]);
  });

  it('the tray warns and names the environments; its menu says why', () => {
    const envs = [
      { id: 'p', name: 'Production', isProduction: true, live: 'relogin-required' as const, notWatching: 'log in again' },
      { id: 's', name: 'Staging', isProduction: false, live: 'connected' as const },
    ];
    // Unread failures change the icon even while an environment is down; the warning is the icon
    // when nothing is unread, and stays in the tooltip and menu either way.
    expect(trayState(3, envs)).toBe('unread');
    expect(trayState(0, envs)).toBe('warning');
    expect(trayState(3, [envs[1]!])).toBe('unread');
    expect(trayState(0, [envs[1]!])).toBe('normal');
    expect(trayTooltip(3, envs)).toBe('Svc Monitor — 3 unread failures\n⚠ Not watching: Production (log in again)');
    expect(trayTooltip(0, envs)).toBe('Svc Monitor\n⚠ Not watching: Production (log in again)');
    const labels = buildTrayMenuTemplate(envs as never, 0).flatMap((i) => ('label' in i ? [i.label] : []));
    expect(labels).toContain('⚠ Not watching 1 of 2');
    expect(labels).toContain('⚠ Production (production) — not watching: log in again');
    expect(labels).toContain('● Staging — connected');
  });

  it('fifty environments down at once are one offline state: the tray says it once and names no list', () => {
    const envs = Array.from({ length: 50 }, (_, i) => ({ id: `e${i}`, name: `Env ${i}`, isProduction: i % 2 === 0, live: 'reconnecting' as const, notWatching: 'live connection down: Cannot reach host' }));
    expect(trayTooltip(2, envs)).toBe('Svc Monitor — 2 unread failures\n⚠ Offline? Not watching any of the 50 environments');
    const labels = buildTrayMenuTemplate(envs as never, 0).flatMap((i) => ('label' in i ? [i.label] : []));
    expect(labels).toContain('⚠ Offline? Not watching any of the 50 environments');
    expect(labels.filter((l) => l.startsWith('⚠ Not watching'))).toEqual([]);
    // Some down (not all): counted, and the tooltip names five and counts the rest.
    const some = envs.map((e, i) => (i < 8 ? e : { ...e, live: 'connected' as const, notWatching: undefined }));
    expect(trayTooltip(0, some)).toBe('Svc Monitor\n⚠ Not watching: Env 0 (live connection down: Cannot reach host), Env 1 (live connection down: Cannot reach host), Env 2 (live connection down: Cannot reach host), Env 3 (live connection down: Cannot reach host), Env 4 (live connection down: Cannot reach host) and 3 more');
  });

  it('a network drop across several production environments raises one notice; all of them down reads as offline', async () => {
    const { dir, cleanup } = await createTempDir();
    cleanups.push(cleanup);
    const rec: RecordingConsole = await createConsole(dir, { watchGraceMs: 200, notWatchingGatherMs: 1_500, session: { retryAfterErrorMs: 100 } });
    cleanups.push(() => rec.services.dispose());
    const names = ['Prod EU', 'Prod US', 'Prod APAC', 'Prod LATAM', 'Prod ZA', 'Prod CA'];
    // Unreachable hosts (nothing listens on port 9): every live connection is down at once.
    await Promise.all(names.map((name, i) => rec.services.addEnvironment({ name, baseUrl: `http://127.0.0.1:9/p${i}`, colour: '#dc2626', isProduction: true })));
    await waitFor(() => rec.services.environments().every((e) => e.notWatching !== undefined), 10_000, 'every gap', 25);
    await waitFor(() => rec.notifications.length > 0, 10_000, 'the notice', 25);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(rec.notifications).toHaveLength(1);
    expect(rec.notifications[0]).toMatchObject({ isProduction: true, title: '⚠ Offline? Not watching any of the 6 environments' });
    expect(rec.notifications[0]!.body).toMatch(/this computer may be offline/);
  });

  it('an unreachable production environment shows "not watching" and raises exactly one notification; staging only shows it', async () => {
    const { dir, cleanup } = await createTempDir();
    cleanups.push(cleanup);
    const rec: RecordingConsole = await createConsole(dir, { watchGraceMs: 200, session: { retryAfterErrorMs: 100 } });
    cleanups.push(() => rec.services.dispose());
    const prod = await rec.services.addEnvironment({ name: 'Production', baseUrl: 'http://127.0.0.1:9', colour: '#dc2626', isProduction: true });
    const stg = await rec.services.addEnvironment({ name: 'Staging', baseUrl: 'http://127.0.0.1:9/stg', colour: '#2563eb', isProduction: false });
    const view = (id: string) => rec.services.environments().find((e) => e.id === id)!;
    await waitFor(() => view(prod.id).notWatching !== undefined && view(stg.id).notWatching !== undefined, 10_000, 'both gaps', 25);
    expect(view(prod.id).notWatching).toMatch(/^live connection down: Cannot reach http:\/\/127\.0\.0\.1:9/);
    await waitFor(() => rec.notifications.length > 0, 10_000, 'the production notification', 25);
    // Retries every 100 ms keep failing: the gap goes on, and still only one notification.
    const statusEvents: string[] = [];
    const off = rec.services.onEvent((e) => e.type === 'status' && e.environment.id === prod.id && statusEvents.push(e.environment.live));
    await waitFor(() => statusEvents.length >= 4, 10_000, 'a few more failed retries', 25);
    off();
    expect(rec.notifications).toHaveLength(1);
    expect(rec.notifications[0]).toMatchObject({ environmentId: prod.id, isProduction: true, title: '⚠ PRODUCTION · Not watching Production', target: { kind: 'environment', environmentId: prod.id } });
    expect(rec.notifications[0]!.body).toMatch(/^Live connection down: Cannot reach .*Failures there are not reported until this is fixed\.$/);
  });
});
