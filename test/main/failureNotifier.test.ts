import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from '../fixtures/waitFor.js';
import type { SvcEvent, SvcEventKind, SvcEventSeverity } from '../../server/src/contracts/events.js';
import { FailureInbox } from '../../src/main/notifications/FailureInbox.js';
import { FailureNotifier, type FailureNotification } from '../../src/main/notifications/FailureNotifier.js';
import { DEFAULT_NOTIFICATION_SETTINGS, notificationSettingsSchema } from '../../src/main/notifications/notificationSettings.js';
import type { NotificationSettings } from '../../src/shared/notifications.js';

const envs = {
  prod: { id: 'prod', name: 'Production', isProduction: true },
  stg: { id: 'stg', name: 'Staging', isProduction: false },
};
let n = 0;
function failed(kind: 'Failed' | 'Timeout' | 'Completed' = 'Failed', at = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString()): SvcEvent {
  n++;
  return {
    kind,
    taskId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    eventDateUtc: at,
    severity: kind === 'Failed' ? 'Error' : kind === 'Timeout' ? 'Warning' : 'Information',
    taskType: `Billing.Invoices.Task${n}`,
    message: `boom ${n}`,
  };
}
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('FailureNotifier and the failure inbox', () => {
  let notifier: FailureNotifier | undefined;
  // Burst windows run on fake timers: a window closes exactly when the test advances past it.
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    notifier?.dispose();
    vi.useRealTimers();
  });

  function setup(burstWindowMs = 60) {
    const inbox = new FailureInbox();
    const shown: FailureNotification[] = [];
    const badge: number[] = [];
    notifier = new FailureNotifier({
      inbox,
      notifications: { show: (x) => shown.push(x) },
      badge: { setUnreadCount: (c) => badge.push(c) },
      environment: (id) => envs[id as keyof typeof envs],
      burstWindowMs,
    });
    return { inbox, shown, badge, notifier };
  }

  it('coalesces a burst per environment into one notification, ignores non-failures, counts unread on the badge', async () => {
    const { inbox, shown, badge, notifier } = setup();
    for (let i = 0; i < 3; i++) notifier.handle('prod', failed());
    // The last attempt of a task timed out: Timeout, then Failed for the same task.
    const timedOut = failed('Timeout');
    notifier.handle('prod', timedOut);
    notifier.handle('prod', { ...timedOut, kind: 'Failed', severity: 'Error', message: 'Task failed: timed out' });
    notifier.handle('prod', failed('Completed'));
    notifier.handle('stg', failed());
    expect(shown).toEqual([]);
    expect(badge.at(-1)).toBe(5);
    vi.advanceTimersByTime(59);
    expect(shown).toEqual([]); // the 60 ms window is still open
    vi.advanceTimersByTime(1);
    expect(shown).toHaveLength(2);
    const prod = shown.find((s) => s.environmentId === 'prod')!;
    expect(prod.title).toBe('⚠ PRODUCTION · 4 tasks failed in Production');
    expect(prod.body).toMatch(/^3 failed, 1 timed out: /);
    expect(prod.isProduction).toBe(true);
    expect(prod.target).toEqual({ kind: 'inbox', environmentId: 'prod', burstId: prod.burstId });
    const stg = shown.find((s) => s.environmentId === 'stg')!;
    expect(stg.title).toBe('Task failed in Staging');
    expect(stg.target).toMatchObject({ kind: 'task', environmentId: 'stg' });
    expect(inbox.list({ burstId: prod.burstId })).toHaveLength(4);

    // A new failure after the window opens a new burst.
    notifier.handle('prod', failed());
    vi.advanceTimersByTime(120);
    expect(shown).toHaveLength(3);
    expect(shown[2]!.burstId).not.toBe(prod.burstId);
  });

  it('only Failed notifies or counts on the badge on its own (a Timeout waits for its task\'s Failed): every other kind at every severity stays silent', () => {
    const kinds: SvcEventKind[] = ['Started', 'Completed', 'Failed', 'Cancelled', 'Timeout', 'OccurrenceSkipped'];
    const severities: SvcEventSeverity[] = ['Information', 'Warning', 'Error'];
    const { inbox, shown, badge, notifier } = setup();
    for (const kind of kinds) {
      for (const severity of severities) {
        const before = { shown: shown.length, inbox: inbox.list().length };
        // Two environments, so the cool-down (5 notifications per environment) is not reached.
        notifier.handle(kind === 'Timeout' ? 'stg' : 'prod', { ...failed(), kind, severity, message: `${kind} at ${severity}` });
        vi.advanceTimersByTime(60);
        const notifies = kind === 'Failed';
        expect({ kind, severity, shown: shown.length - before.shown, inbox: inbox.list().length - before.inbox }).toEqual({ kind, severity, shown: notifies ? 1 : 0, inbox: notifies ? 1 : 0 });
      }
    }
    expect(shown.map((x) => x.body.replace(/^Task\d+: /, ''))).toEqual(['Failed at Information', 'Failed at Warning', 'Failed at Error']);
    expect(badge.at(-1)).toBe(3);
  });

  it('a timeout on the last attempt is one inbox item and one "timed out" notice; a timed-out attempt whose retry runs raises nothing', () => {
    const { inbox, shown, badge, notifier } = setup();
    // Last attempt: the engine sends Timeout, then Failed, for the same task.
    const last = failed('Timeout');
    notifier.handle('prod', last);
    notifier.handle('prod', { ...last, kind: 'Failed', severity: 'Error', message: 'Task failed: timed out after 30000 ms' });
    vi.advanceTimersByTime(60);
    expect(inbox.list()).toHaveLength(1);
    expect(inbox.list()[0]).toMatchObject({ taskId: last.taskId, kind: 'Timeout', message: 'Task failed: timed out after 30000 ms' });
    expect(shown.map((x) => x.title)).toEqual(['⚠ PRODUCTION · Task timed out in Production']);
    expect(badge.at(-1)).toBe(1);

    // An attempt times out, its retry starts and succeeds: no item, no notice.
    const retried = failed('Timeout');
    notifier.handle('stg', retried);
    notifier.handle('stg', { ...retried, kind: 'Started', severity: 'Information', message: 'started' });
    notifier.handle('stg', { ...retried, kind: 'Completed', severity: 'Information', message: 'done' });
    // An attempt times out and the retry waits out its backoff (no Failed within the hold): nothing.
    const waiting = failed('Timeout');
    notifier.handle('stg', waiting);
    vi.advanceTimersByTime(200);
    expect(inbox.list()).toHaveLength(1);
    expect(shown).toHaveLength(1);
    // That retry fails later for another reason: one plain failure.
    notifier.handle('stg', { ...waiting, kind: 'Failed', severity: 'Error', message: 'Task failed: boom' });
    vi.advanceTimersByTime(60);
    expect(inbox.list({ environmentId: 'stg' }).map((i) => i.kind)).toEqual(['Failed']);
    expect(shown.map((x) => x.title)).toEqual(['⚠ PRODUCTION · Task timed out in Production', 'Task failed in Staging']);
  });

  it('keeps the inbox newest first and marks items, bursts or environments read', () => {
    const { inbox, badge, notifier } = setup(10_000);
    notifier.handle('stg', failed('Failed', '2026-01-01T10:00:00.000Z'));
    notifier.handle('prod', failed('Failed', '2026-01-01T12:00:00.000Z'));
    notifier.handle('prod', failed('Failed', '2026-01-01T11:00:00.000Z'));
    expect(inbox.list().map((i) => i.eventDateUtc)).toEqual(['2026-01-01T12:00:00.000Z', '2026-01-01T11:00:00.000Z', '2026-01-01T10:00:00.000Z']);
    expect(inbox.markRead([inbox.list()[0]!.id])).toBe(1);
    expect(badge.at(-1)).toBe(2);
    expect(inbox.markRead(undefined, { environmentId: 'stg' })).toBe(1);
    expect(inbox.list({ unreadOnly: true }).map((i) => i.environmentName)).toEqual(['Production']);
    expect(badge.at(-1)).toBe(1);
    notifier.flushAll();
  });

  it('honours scope and per-environment mute for notifications and badge, but the inbox records everything', async () => {
    const { inbox, shown, badge, notifier } = setup();
    notifier.setSettings({ scope: 'chosen', chosenEnvironmentIds: ['prod'], mutedEnvironmentIds: [] });
    notifier.handle('stg', failed());
    notifier.handle('prod', failed());
    vi.advanceTimersByTime(120);
    expect(shown.map((s) => s.environmentId)).toEqual(['prod']);
    expect(badge.at(-1)).toBe(1);
    notifier.setSettings({ scope: 'all', chosenEnvironmentIds: [], mutedEnvironmentIds: ['prod'] });
    expect(badge.at(-1)).toBe(1); // stg now counts, prod is muted
    notifier.handle('prod', failed());
    vi.advanceTimersByTime(120);
    expect(shown).toHaveLength(1);
    expect(inbox.list()).toHaveLength(3);
  });
});

describe('notification storms', () => {
  let notifier: FailureNotifier | undefined;
  afterEach(() => notifier?.dispose());
  function setup(settings: Partial<NotificationSettings> = {}) {
    const inbox = new FailureInbox();
    const shown: FailureNotification[] = [];
    const badge: number[] = [];
    notifier = new FailureNotifier({
      inbox,
      notifications: { show: (x) => shown.push(x) },
      badge: { setUnreadCount: (c) => badge.push(c) },
      environment: (id) => envs[id as keyof typeof envs],
      burstWindowMs: 10,
      coolDown: { max: 2, windowMs: 400 },
      settings: { ...DEFAULT_NOTIFICATION_SETTINGS, ...settings },
    });
    return { inbox, shown, badge, notifier };
  }

  it('after the cool-down limit, further bursts wait for one digest that points to the inbox', async () => {
    const { shown, notifier: n } = setup();
    n.handle('prod', failed());
    await waitFor(() => shown.length === 1, 5_000, 'notification 1', 10);
    n.handle('prod', failed());
    await waitFor(() => shown.length === 2, 5_000, 'notification 2', 10);
    // Two more bursts inside the window: held back.
    n.handle('prod', failed());
    await tick(30);
    n.handle('prod', failed());
    n.handle('prod', failed());
    await waitFor(() => shown.length === 3, 5_000, 'the digest', 10);
    expect(shown[2]).toMatchObject({ title: '⚠ PRODUCTION · 3 more failures in Production', count: 3, target: { kind: 'inbox', environmentId: 'prod' } });
    expect(shown.slice(0, 2).every((s) => s.title.startsWith('⚠ PRODUCTION · Task failed'))).toBe(true);
    // Other environments are not held back by Production's storm.
    n.handle('stg', failed());
    await waitFor(() => shown.length === 4, 5_000, 'staging', 10);
    expect(shown[3]!.environmentId).toBe('stg');
  });

  it('"production only" keeps other environments silent (inbox and badge still count them)', async () => {
    const { shown, badge, inbox, notifier: n } = setup({ productionOnly: true });
    n.handle('stg', failed());
    n.handle('prod', failed());
    await waitFor(() => shown.length === 1, 5_000, 'production', 10);
    n.flushAll();
    expect(shown.map((s) => s.environmentId)).toEqual(['prod']);
    expect(inbox.list()).toHaveLength(2);
    expect(badge.at(-1)).toBe(2);
  });

  it('"mute for 1 h" silences an environment until the time runs out', async () => {
    const inOneHour = new Date(Date.now() + 3_600_000).toISOString();
    const { shown, badge, notifier: n } = setup({ mutedUntil: { prod: inOneHour, stg: new Date(Date.now() - 1_000).toISOString() } });
    n.handle('prod', failed());
    n.handle('stg', failed());
    await waitFor(() => shown.length === 1, 5_000, 'staging (its mute has run out)', 10);
    n.flushAll();
    expect(shown.map((s) => s.environmentId)).toEqual(['stg']);
    expect(badge.at(-1)).toBe(1);
    expect(notificationSettingsSchema.safeParse({ ...DEFAULT_NOTIFICATION_SETTINGS, mutedUntil: { prod: inOneHour }, productionOnly: true }).success).toBe(true);
    expect(notificationSettingsSchema.safeParse({ ...DEFAULT_NOTIFICATION_SETTINGS, mutedUntil: { prod: 'soon' } }).success).toBe(false);
  });
});
