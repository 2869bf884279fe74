import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SvcEvent } from '../../server/src/contracts/events.js';
import { createIpcDispatcher } from '../../src/main/ipc/ipcDispatcher.js';
import { groupInbox } from '../../src/shared/inbox.js';
import type { IpcResult } from '../../src/shared/ipcContract.js';
import type { NotificationSettings } from '../../src/shared/notifications.js';
import { createConsole, type RecordingConsole } from '../fixtures/main/consoleSuite.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

let n = 0;
function failure(taskType: string, exception: string, queueName = 'default'): SvcEvent & { kind: 'Failed' } {
  n++;
  return {
    kind: 'Failed',
    taskId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    eventDateUtc: new Date(Date.UTC(2026, 10, 29, 0, 0, 0, n)).toISOString(),
    severity: 'Error',
    taskType,
    queueName,
    message: exception.split('\n')[0]!,
    exception,
  };
}
const BURST_MS = 30;
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SETTINGS: NotificationSettings = { scope: 'all', chosenEnvironmentIds: [], mutedEnvironmentIds: [] };

describe('inbox triage (main): acknowledge, group, snooze, quiet hours, CSV, links', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let c: RecordingConsole | undefined;
  beforeEach(async () => ({ dir, cleanup } = await createTempDir()));
  afterEach(async () => {
    await c?.services.dispose();
    c = undefined;
    await cleanup();
  });

  async function start(files?: { save: string }) {
    c = await createConsole(dir, { burstWindowMs: BURST_MS });
    const prod = await c.services.addEnvironment({ name: 'Production', baseUrl: 'http://127.0.0.1:9', colour: '#dc2626', isProduction: true });
    const stg = await c.services.addEnvironment({ name: 'Staging', baseUrl: 'http://127.0.0.1:9', colour: '#2563eb', isProduction: false });
    const dispatch = createIpcDispatcher({
      services: c.services,
      openExternal: async () => undefined,
      ...(files ? { files: { open: async () => null, save: async () => files.save } } : {}),
    });
    const call = async <T>(channel: string, ...args: unknown[]): Promise<T> => {
      const r = (await dispatch(channel, args)) as IpcResult<T>;
      if (!r.ok) throw new Error(`${channel}: ${r.error.message}`);
      return r.value;
    };
    return { c, prod, stg, call, dispatch };
  }

  it('acknowledging marks items read and acknowledged, reaches the renderer as a change, and survives a restart', async () => {
    const { c: first, prod, call } = await start();
    const changes: unknown[] = [];
    first.services.onEvent((e) => e.type === 'inbox' && changes.push(...e.changes));
    for (let i = 0; i < 3; i++) first.services.notifier.handle(prod.id, failure('Billing.Send', `Timeout after ${i}00 ms`));
    const [a, b] = first.services.inbox.list();
    expect(await call<number>('inbox.acknowledge', [a!.id, b!.id])).toBe(2);
    // Once is enough: acknowledging again changes nothing.
    expect(await call<number>('inbox.acknowledge', [a!.id])).toBe(0);
    expect(first.services.inbox.list().map((i) => [i.read, i.acknowledged === true])).toEqual([
      [true, true],
      [true, true],
      [false, false],
    ]);
    await expect.poll(() => changes).toContainEqual({ kind: 'acknowledged', ids: [a!.id, b!.id] });
    expect(first.badge.at(-1)).toBe(1);
    await first.services.dispose();
    c = await createConsole(dir);
    expect(c.services.inbox.list().map((i) => i.acknowledged === true)).toEqual([true, true, false]);
  });

  it('groups the inbox by environment and failure fingerprint: one row per error with its count', async () => {
    const { c, prod, stg } = await start();
    // The same error with different ids and numbers is one error; another environment's is its own row.
    c.services.notifier.handle(prod.id, failure('Billing.Send', 'Invoice 5ba1c1e2-08a4-4b8f-9b5e-4a0d6f1e2a11 not found\n   at Send()'));
    c.services.notifier.handle(prod.id, failure('Billing.Resend', 'Invoice 0f2b3c4d-1111-4b8f-9b5e-4a0d6f1e2a11 not found\n   at Resend()'));
    c.services.notifier.handle(prod.id, failure('Billing.Send', 'Connection refused (127.0.0.1:5432)'));
    c.services.notifier.handle(stg.id, failure('Billing.Send', 'Invoice 9a9a9a9a-2222-4b8f-9b5e-4a0d6f1e2a11 not found'));
    const groups = groupInbox(c.services.inbox.list());
    expect(groups.map((g) => [g.environmentName, g.fingerprint, g.count, g.taskTypes])).toEqual([
      ['Staging', 'Invoice # not found', 1, ['Billing.Send']],
      ['Production', 'Connection refused (#.#.#.#:#)', 1, ['Billing.Send']],
      ['Production', 'Invoice # not found', 2, ['Billing.Resend', 'Billing.Send']],
    ]);
    c.services.inbox.acknowledge([groups[2]!.itemIds[0]!]);
    const after = groupInbox(c.services.inbox.list())[2]!;
    expect([after.unread, after.unacknowledged]).toEqual([1, 1]);
  });

  it('a snoozed type or queue of one environment neither notifies nor counts in the badge until the snooze runs out; the inbox records it', async () => {
    const { c, prod, stg, call } = await start();
    const until = new Date(Date.now() + 400).toISOString();
    await call('notifications.setSettings', {
      ...SETTINGS,
      snoozes: [
        { environmentId: prod.id, taskType: 'Billing.Send', until },
        { environmentId: prod.id, queueName: 'reports', until: new Date(Date.now() + 3_600_000).toISOString() },
      ],
    });
    c.services.notifier.handle(prod.id, failure('Billing.Send', 'boom'));
    c.services.notifier.handle(prod.id, failure('Reports.Build', 'boom', 'reports'));
    // The same type in another environment is not snoozed.
    c.services.notifier.handle(stg.id, failure('Billing.Send', 'boom'));
    await tick(BURST_MS * 4);
    expect(c.notifications.map((x) => x.title)).toEqual(['Task failed in Staging']);
    expect(c.services.inbox.list()).toHaveLength(3);
    expect(c.badge.at(-1)).toBe(1);
    // The type's snooze runs out: its failure counts again (the queue's does not yet).
    await expect.poll(() => c.badge.at(-1), { timeout: 5_000 }).toBe(2);
    c.services.notifier.handle(prod.id, failure('Billing.Send', 'again'));
    await expect.poll(() => c.notifications.map((x) => x.title)).toEqual(['Task failed in Staging', '⚠ PRODUCTION · Task failed in Production']);
  });

  it('quiet hours hold back every desktop notification (spanning midnight too); the inbox and the badge still record', async () => {
    const { c, prod, call } = await start();
    const now = new Date();
    const hhmm = (d: Date) => `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
    // From one minute ago to two hours on: now is inside, whatever the time of day.
    await call('notifications.setSettings', { ...SETTINGS, quietHours: { from: hhmm(new Date(now.getTime() - 60_000)), to: hhmm(new Date(now.getTime() + 2 * 3_600_000)) } });
    c.services.notifier.handle(prod.id, failure('Billing.Send', 'boom'));
    await tick(BURST_MS * 4);
    expect(c.notifications).toEqual([]);
    expect(c.services.inbox.list()).toHaveLength(1);
    expect(c.badge.at(-1)).toBe(1);
    // Quiet hours that ended a minute ago: notifications again.
    await call('notifications.setSettings', { ...SETTINGS, quietHours: { from: hhmm(new Date(now.getTime() - 3 * 3_600_000)), to: hhmm(new Date(now.getTime() - 60_000)) } });
    c.services.notifier.handle(prod.id, failure('Billing.Send', 'boom'));
    await expect.poll(() => c.notifications).toHaveLength(1);
  });

  it('refuses a malformed snooze or quiet hours with a clear error', async () => {
    const { prod, dispatch } = await start();
    const bad = async (settings: unknown) => ((await dispatch('notifications.setSettings', [settings])) as IpcResult<null> & { ok: false }).error.message;
    expect(await bad({ ...SETTINGS, quietHours: { from: '25:00', to: '07:00' } })).toMatch(/quietHours.from: must be a time as HH:MM/);
    expect(await bad({ ...SETTINGS, snoozes: [{ environmentId: prod.id, until: new Date().toISOString() }] })).toMatch(/a snooze names a task type or a queue/);
    expect(await bad({ ...SETTINGS, snoozes: [{ environmentId: prod.id, taskType: 'T', queueName: 'q', until: new Date().toISOString() }] })).toMatch(/one of the two/);
  });

  it('keeps snoozes, quiet hours, timed mutes and "production only" across a restart', async () => {
    const { c: first, prod, call } = await start();
    const settings: NotificationSettings = {
      ...SETTINGS,
      productionOnly: true,
      mutedUntil: { [prod.id]: '2099-01-01T00:00:00.000Z' },
      snoozes: [{ environmentId: prod.id, taskType: 'Billing.Send', until: '2099-01-01T00:00:00.000Z' }],
      quietHours: { from: '22:00', to: '07:00' },
    };
    await call('notifications.setSettings', settings);
    await first.services.dispose();
    c = await createConsole(dir);
    expect(c.services.notifier.getSettings()).toEqual(settings);
  });

  it('exports the inbox as RFC 4180 CSV where no cell can run as a spreadsheet formula', async () => {
    const save = join(dir, 'inbox.csv');
    const { c, prod, call } = await start({ save });
    c.services.notifier.handle(prod.id, failure('Billing.Send', '=HYPERLINK("http://evil.example","click")'));
    c.services.notifier.handle(prod.id, failure('Billing.Send', 'Bad "quoted" value, and a comma\n   at Send()'));
    c.services.notifier.handle(prod.id, failure('@Reports', '-1 rows'));
    expect(await call<string>('inbox.exportFile')).toBe(save);
    const text = await readFile(save, 'utf8');
    const [newest, middle, oldest] = c.services.inbox.list();
    const link = (id: string) => `svc-monitor://Production/tasks/${id}`;
    expect(text).toBe(
      [
        'environment,production,taskId,taskType,queue,kind,eventDateUtc,message,fingerprint,read,acknowledged,whileAway,link',
        `Production,yes,${newest!.taskId},'@Reports,default,Failed,${newest!.eventDateUtc},'-1 rows,'-# rows,no,no,no,${link(newest!.taskId)}`,
        `Production,yes,${middle!.taskId},Billing.Send,default,Failed,${middle!.eventDateUtc},"Bad ""quoted"" value, and a comma","Bad ""…"" value, and a comma",no,no,no,${link(middle!.taskId)}`,
        `Production,yes,${oldest!.taskId},Billing.Send,default,Failed,${oldest!.eventDateUtc},"'=HYPERLINK(""http://evil.example"",""click"")","'=HYPERLINK(""…"",""…"")",no,no,no,${link(oldest!.taskId)}`,
        '',
      ].join('\r\n'),
    );
  });

  it('gives the shareable svc-monitor: link of a task, which opens that task', async () => {
    const { c, prod, call, dispatch } = await start();
    const taskId = '5ba1c1e2-08a4-4b8f-9b5e-4a0d6f1e2a11';
    const link = await call<string>('deepLink.taskLink', prod.id, taskId);
    expect(link).toBe(`svc-monitor://Production/tasks/${taskId}`);
    expect(c.services.resolveDeepLink(link).target).toEqual({ kind: 'task', environmentId: prod.id, taskId });
    const unknown = (await dispatch('deepLink.taskLink', ['nope', taskId])) as IpcResult<string> & { ok: false };
    expect(unknown.error.code).toBe('not-found');
  });
});
