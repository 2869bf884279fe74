import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvcEvent } from '../../../server/src/contracts/events.js';
import { seriousAccessibilityViolations } from '../accessibility.js';
import { buildDesktop, openDesktop, serveRenderer, type DesktopHarness, type RendererServer } from './desktopHarness.js';

let n = 0;
function failure(taskType: string, exception: string, queueName = 'default'): SvcEvent & { kind: 'Failed' } {
  n++;
  return {
    kind: 'Failed',
    taskId: `5ba1c1e2-08a4-4b8f-9b5e-${String(n).padStart(12, '0')}`,
    eventDateUtc: new Date(Date.now() - 60_000 + n).toISOString(),
    severity: 'Error',
    taskType,
    queueName,
    message: exception.split('\n')[0]!,
    exception,
  };
}

describe('desktop inbox triage in Chromium (real main services): keyboard, screen-reader names, axe-core', () => {
  let renderer: RendererServer;
  let h: DesktopHarness;
  let dir: string;
  let prodId: string;
  let stgId: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-desktop-triage-'));
    renderer = await serveRenderer(await buildDesktop());
    h = await openDesktop(renderer.url, { burstWindowMs: 50, files: { open: async () => null, save: async () => join(dir, 'inbox.csv') } });
    // No server behind them: the inbox does not need one.
    prodId = (await h.services.addEnvironment({ name: 'Production', baseUrl: 'http://127.0.0.1:9', colour: '#dc2626', isProduction: true })).id;
    stgId = (await h.services.addEnvironment({ name: 'Staging', baseUrl: 'http://127.0.0.1:9', colour: '#2563eb', isProduction: false })).id;
    h.services.notifier.handle(prodId, failure('Billing.Send', 'Invoice 11111111-2222-4333-8444-555555555555 not found'));
    h.services.notifier.handle(prodId, failure('Billing.Resend', 'Invoice 99999999-2222-4333-8444-555555555555 not found', 'billing'));
    h.services.notifier.handle(stgId, failure('Reports.Build', 'Connection refused (db:5432)'));
    await h.page.goto(renderer.url);
    await h.page.getByTestId('open-inbox').click();
    await h.page.getByTestId('inbox').waitFor();
  }, 300_000);

  afterAll(async () => {
    await h?.close();
    await renderer?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('acknowledges an item from the keyboard; the row says so and main has it', async () => {
    const p = h.page;
    const newest = h.services.inbox.list()[0]!;
    await p.getByTestId(`inbox-ack-${newest.id}`).focus();
    await p.keyboard.press('Enter');
    await expect.poll(() => h.services.inbox.list()[0]!.acknowledged).toBe(true);
    await expect.poll(() => p.getByTestId('inbox-acknowledged').count()).toBe(1);
    await expect.poll(() => p.getByTestId(`inbox-ack-${newest.id}`).count()).toBe(0);
  });

  it('copies the shareable svc-monitor: link of a task', async () => {
    const p = h.page;
    const item = h.services.inbox.list().find((i) => i.environmentId === prodId)!;
    await p.getByRole('button', { name: `Copy link to ${item.taskType.split('.').pop()} in Production` }).first().click();
    await expect.poll(() => p.evaluate(() => navigator.clipboard.readText())).toMatch(/^svc-monitor:\/\/Production\/tasks\/5ba1c1e2-/);
    const link = await p.evaluate(() => navigator.clipboard.readText());
    expect(h.services.resolveDeepLink(link).target).toMatchObject({ kind: 'task', environmentId: prodId });
  });

  it('snoozes a type of one environment for a time, shows it, and ends it', async () => {
    const p = h.page;
    const item = h.services.inbox.list().find((i) => i.taskType === 'Reports.Build')!;
    await p.getByRole('combobox', { name: 'Snooze Build in Staging' }).selectOption('type:8');
    await expect.poll(() => h.services.notifier.getSettings().snoozes?.map((s) => [s.environmentId, s.taskType])).toEqual([[stgId, 'Reports.Build']]);
    const until = Date.parse(h.services.notifier.getSettings().snoozes![0]!.until);
    expect(until - Date.now()).toBeGreaterThan(7.9 * 3_600_000);
    await expect.poll(() => p.getByTestId('inbox-snoozed').count()).toBe(1);
    await expect.poll(() => p.getByTestId('snooze').textContent()).toMatch(/^\s*Snoozed: type Build in Staging until/);
    // A new failure of the snoozed type: in the inbox, no desktop notification.
    const before = h.notifications.length;
    h.services.notifier.handle(stgId, failure('Reports.Build', 'Connection refused (db:5433)'));
    await expect.poll(() => h.services.inbox.list().filter((i) => i.taskType === item.taskType)).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(h.notifications.length).toBe(before);
    await p.getByRole('button', { name: 'End the snooze of type Build in Staging' }).click();
    await expect.poll(() => h.services.notifier.getSettings().snoozes).toEqual([]);
  });

  it('sets quiet hours with the keyboard', async () => {
    const p = h.page;
    await p.getByTestId('quiet-hours').focus();
    await p.keyboard.press('Space');
    await expect.poll(() => h.services.notifier.getSettings().quietHours).toEqual({ from: '22:00', to: '07:00' });
    await p.getByTestId('quiet-from').fill('21:30');
    await expect.poll(() => h.services.notifier.getSettings().quietHours).toEqual({ from: '21:30', to: '07:00' });
  });

  it('groups by environment and error, one row per error with its count, and acknowledges a group', async () => {
    const p = h.page;
    await p.getByRole('radio', { name: 'By error' }).click();
    const rows = p.getByTestId('inbox-group');
    await expect.poll(() => rows.count()).toBe(2);
    const texts = await rows.allTextContents();
    const invoice = texts.findIndex((t) => t.includes('Invoice # not found'));
    expect(texts[invoice]).toMatch(/2×\s*Production/);
    expect(texts[invoice]).toContain('Resend, Send');
    expect(texts.find((t) => t.includes('Connection refused'))).toMatch(/2×\s*Staging/);
    await rows.nth(invoice).getByTestId('inbox-group-ack').click();
    await expect.poll(() => h.services.inbox.list().filter((i) => i.environmentId === prodId).every((i) => i.acknowledged)).toBe(true);
  });

  it('has no serious or critical axe-core violations in either view', async () => {
    const p = h.page;
    expect(await seriousAccessibilityViolations(p, '[data-testid="inbox"]')).toEqual([]);
    await p.getByRole('radio', { name: 'Every failure' }).click();
    await p.getByTestId('inbox-group').first().waitFor({ state: 'detached' });
    expect(await seriousAccessibilityViolations(p, '[data-testid="inbox"]')).toEqual([]);
  });

  it('exports the inbox as CSV to the chosen file and says where', async () => {
    const p = h.page;
    await p.getByTestId('inbox-export').click();
    await expect.poll(() => p.getByTestId('inbox-exported').textContent()).toBe(`Saved to ${join(dir, 'inbox.csv')}`);
    const csv = await readFile(join(dir, 'inbox.csv'), 'utf8');
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('environment,production,taskId,taskType,queue,kind,eventDateUtc,message,fingerprint,read,acknowledged,whileAway,link');
    expect(lines).toHaveLength(h.services.inbox.size + 2);
    // (A missing favicon is the only resource the page may fail to load.)
    expect(h.pageErrors.filter((e) => !e.startsWith('Failed to load resource'))).toEqual([]);
  });
});
