import { describe, expect, it } from 'vitest';
import type { EnvironmentStatusView } from '../../src/shared/environmentStatus.js';
import type { InboxItem } from '../../src/shared/inbox.js';
import { inQuietHours, isSnoozed, type NotificationSettings } from '../../src/shared/notifications.js';
import { paletteCommands, selectedTaskId } from '../../src/renderer/desktop/palette/paletteCommands.js';
import { describeSearch } from '../../src/renderer/desktop/search/crossSearch.js';
import { snoozeOf, withoutSnooze, withSnooze } from '../../src/renderer/desktop/inbox/snoozes.js';

function env(id: string, name: string, canManage = true): EnvironmentStatusView {
  return {
    id,
    name,
    baseUrl: `https://${id}.example.com`,
    colour: '#2563eb',
    isProduction: id === 'prd',
    session: { environmentId: id, auth: 'authenticated', canManage, managementEnabled: true, requireAuthentication: true, hasRememberedPassword: false },
    hub: { state: 'connected' },
    live: 'connected',
  } as EnvironmentStatusView;
}
const TASK = '5ba1c1e2-08a4-4b8f-9b5e-4a0d6f1e2a11';
const SETTINGS: NotificationSettings = { scope: 'all', chosenEnvironmentIds: [], mutedEnvironmentIds: [] };

describe('command palette entries', () => {
  const envs = [env('stg', 'Staging'), env('prd', 'Production')];

  it('lists environments first (a name and Enter still switches), then pages and views; a query can always be searched for', () => {
    const labels = paletteCommands({ environments: envs, active: envs[0], route: '/' }, 'prdct').map((c) => c.label);
    expect(labels[0]).toBe('Production');
    expect(labels.at(-1)).toBe('Search all environments for “prdct”');
    const all = paletteCommands({ environments: envs, active: envs[0], route: '/' }, '').map((c) => c.kind);
    expect(all.slice(0, 2)).toEqual(['environment', 'environment']);
    expect(all).not.toContain('search');
    expect(all).not.toContain('manage');
  });

  it('offers retry, requeue and cancel for the open task only to a session that may manage it', () => {
    const onTask = paletteCommands({ environments: envs, active: envs[1], route: `/tasks/${TASK}?tab=runs` }, 'cancel');
    expect(onTask.filter((c) => c.kind === 'manage').map((c) => c.label)).toEqual([`Cancel ${TASK.slice(0, 8)} (Production)`]);
    const readOnly = env('prd', 'Production', false);
    expect(paletteCommands({ environments: [readOnly], active: readOnly, route: `/tasks/${TASK}` }, '').some((c) => c.kind === 'manage')).toBe(false);
    expect(selectedTaskId('/tasks')).toBeUndefined();
    expect(selectedTaskId(`/tasks/${TASK}`)).toBe(TASK);
  });
});

describe('search status line', () => {
  it('says the progress, then the totals and how many environments could not answer', () => {
    const hit = { environmentId: 'stg', taskId: TASK, type: 'Send', status: 'Failed', queueName: 'default', matched: 'id', createdAtUtc: '2026-11-29T00:00:00Z' } as const;
    expect(describeSearch({ text: 'x', hits: [hit], environments: [
      { environmentId: 'stg', name: 'Staging', state: 'done', total: 1, shown: 1 },
      { environmentId: 'prd', name: 'Production', state: 'searching' },
    ] })).toBe('Searching… 1 of 2 environments answered, 1 task so far');
    expect(describeSearch({ text: 'x', hits: [], environments: [
      { environmentId: 'stg', name: 'Staging', state: 'done', total: 0, shown: 0 },
      { environmentId: 'prd', name: 'Production', state: 'error', message: 'Cannot reach' },
    ] })).toBe('0 tasks in 2 environments; 1 could not answer');
  });
});

describe('snoozes and quiet hours', () => {
  const item = { environmentId: 'prd', taskType: 'Billing.Send', queueName: 'billing' } as InboxItem;
  const now = Date.UTC(2026, 10, 29, 12);

  it('a snooze of a type or a queue replaces the same one, drops those that ran out, and silences only its environment', () => {
    const old = { environmentId: 'stg', taskType: 'X', until: new Date(now - 1).toISOString() };
    let settings = withSnooze({ ...SETTINGS, snoozes: [old] }, snoozeOf(item, 'type', 1, now), now);
    settings = withSnooze(settings, snoozeOf(item, 'type', 8, now), now);
    expect(settings.snoozes).toEqual([{ environmentId: 'prd', taskType: 'Billing.Send', until: new Date(now + 8 * 3_600_000).toISOString() }]);
    expect(isSnoozed(settings, item, now)).toBe(true);
    expect(isSnoozed(settings, { ...item, environmentId: 'stg' }, now)).toBe(false);
    expect(isSnoozed(settings, item, now + 8 * 3_600_000)).toBe(false);
    const byQueue = withSnooze(SETTINGS, snoozeOf(item, 'queue', 1, now), now);
    expect(isSnoozed(byQueue, { ...item, taskType: 'Other' }, now)).toBe(true);
    expect(withoutSnooze(byQueue, byQueue.snoozes![0]!).snoozes).toEqual([]);
  });

  it('quiet hours count in local time, from inclusive to exclusive, across midnight too', () => {
    const at = (h: number, m = 0) => new Date(2026, 10, 29, h, m).getTime();
    const night = { ...SETTINGS, quietHours: { from: '22:00', to: '07:00' } };
    expect([at(21, 59), at(22), at(3), at(6, 59), at(7)].map((t) => inQuietHours(night, t))).toEqual([false, true, true, true, false]);
    const lunch = { ...SETTINGS, quietHours: { from: '12:00', to: '13:30' } };
    expect([at(11, 59), at(12), at(13, 29), at(13, 30)].map((t) => inQuietHours(lunch, t))).toEqual([false, true, true, false]);
    expect(inQuietHours(SETTINGS, at(23))).toBe(false);
  });
});
