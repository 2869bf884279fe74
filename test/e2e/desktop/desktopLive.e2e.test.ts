import { screenshotDir } from '../screenshotDir.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aesSafeStorage } from '../../main/support/aesSafeStorage.js';
import { startFullHost, svcEvent, type FullHost } from '../../main/support/fullHost.js';
import { buildDesktop, openDesktop, serveRenderer, type DesktopHarness } from './desktopHarness.js';

const SHOTS = screenshotDir('desktop');

describe('desktop console: live status and the failure inbox across two hubs', () => {
  let dir: string;
  let staging: FullHost;
  let production: FullHost;
  let renderer: { url: string; close: () => Promise<void> };
  let h: DesktopHarness;
  let stagingId: string;
  let productionId: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-desktop-live-'));
    renderer = await serveRenderer(await buildDesktop());
    staging = await startFullHost(dir, { username: 'ops', password: 'staging-pw' });
    production = await startFullHost(dir, { username: 'ops', password: 'prod-pw' });
    h = await openDesktop(renderer.url, { safeStorage: aesSafeStorage('gnome_libsecret'), burstWindowMs: 300, colorScheme: 'dark' });
    stagingId = (await h.services.addEnvironment({ name: 'Staging', baseUrl: staging.baseUrl, colour: '#2563eb', isProduction: false, group: 'EU' })).id;
    productionId = (await h.services.addEnvironment({ name: 'Production', baseUrl: production.baseUrl, colour: '#dc2626', isProduction: true, group: 'EU' })).id;
    await h.services.loginWithPassword(stagingId, 'ops', 'staging-pw', true);
    await h.services.loginWithPassword(productionId, 'ops', 'prod-pw', true);
  }, 300_000);

  afterAll(async () => {
    await h?.close();
    await renderer?.close();
    await staging?.close();
    await production?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('shows each environment connected, then receives a failure from each server in the inbox', async () => {
    const p = h.page;
    await p.goto(renderer.url);
    await expect.poll(() => p.getByTestId('env-status-Staging').textContent(), { timeout: 10_000 }).toBe('Connected');
    await expect.poll(() => p.getByTestId('env-status-Production').textContent(), { timeout: 10_000 }).toBe('Connected');

    staging.emit(svcEvent('Failed', 'Billing.Invoices.SendInvoice'));
    for (let i = 0; i < 3; i++) production.emit(svcEvent('Failed', 'Reports.Nightly.Build'));
    production.emit(svcEvent('Timeout', 'Payments.Settle'));
    await expect.poll(() => p.getByTestId('inbox-unread').textContent(), { timeout: 10_000 }).toBe('5');
    await expect.poll(() => h.notifications.length, { timeout: 5_000 }).toBe(2);
    expect(h.notifications.map((n) => n.title).sort()).toEqual(['⚠ PRODUCTION · 4 tasks failed in Production', 'Task failed in Staging'].sort());
    expect(h.badge.at(-1)).toBe(5);

    // A click on the Production notification opens the inbox filtered to that burst.
    const prodNote = h.notifications.find((n) => n.environmentId === productionId)!;
    h.services.open(prodNote.target);
    await p.getByTestId('inbox').waitFor();
    await expect.poll(() => p.getByTestId('inbox-item-Production').count()).toBe(4);
    expect(await p.getByTestId('inbox-item-Staging').count()).toBe(0);
    await p.getByRole('button', { name: 'Show all' }).click();
    await expect.poll(() => p.getByTestId('inbox-item-Staging').count()).toBe(1);
    // Newest first: the last event (the Timeout) is on top.
    await expect.poll(() => p.locator('.desk-inbox__item').first().textContent()).toContain('Timed out');
    await p.screenshot({ path: `${SHOTS}/inbox-dark.png` });

    await p.getByTestId('inbox-item-Staging').getByRole('button', { name: 'Mark read' }).click();
    await expect.poll(() => p.getByTestId('inbox-unread').textContent()).toBe('4');
    expect(h.badge.at(-1)).toBe(4);
    await p.getByTestId('inbox-mark-all').click();
    await expect.poll(() => p.getByTestId('inbox-unread').count()).toBe(0);
    expect(h.badge.at(-1)).toBe(0);

    // Jump from an inbox item to its task: the environment switches and the task page opens.
    await p.getByTestId('inbox-item-Staging').locator('.desk-inbox__open').click();
    await expect.poll(() => p.getByTestId('active-env').textContent()).toBe('Staging');
    await p.getByTestId('dashboard-host').waitFor();
  });

  it('mutes an environment: its failures reach the inbox but neither a notification nor the badge', async () => {
    const p = h.page;
    await p.getByTestId('env-mute-Production').click();
    await expect.poll(() => p.getByTestId('env-mute-Production').getAttribute('aria-pressed')).toBe('true');
    const before = h.notifications.length;
    production.emit(svcEvent('Failed'));
    await expect.poll(() => h.services.inboxList().length).toBe(6);
    await new Promise((r) => setTimeout(r, 600));
    expect(h.notifications.length).toBe(before);
    expect(h.badge.at(-1)).toBe(0);
    await p.screenshot({ path: `${SHOTS}/environments-dark.png` });
  });
});
