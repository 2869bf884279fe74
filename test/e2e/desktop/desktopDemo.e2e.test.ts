import { screenshotDir } from '../screenshotDir.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aesSafeStorage } from '../../main/support/aesSafeStorage.js';
import { demoCliAvailable, startDemo, type DemoServer } from '../../main/support/demoCli.js';
import { buildDesktop, openDesktop, serveRenderer, type DesktopHarness } from './desktopHarness.js';

const SHOTS = screenshotDir('desktop');

/** The operate credential the demo prints (management enabled). */
function operateCredential(output: string): { username: string; password: string } {
  const m = /operate[^\n]*?\b([A-Za-z0-9_.-]+)\s*\/\s*([^\s,;)]+)/i.exec(output);
  if (!m) throw new Error(`the demo output names no operate credential:\n${output}`);
  return { username: m[1]!, password: m[2]! };
}

describe.skipIf(!demoCliAvailable())('desktop console against two real demo servers', () => {
  let dir: string;
  let staging: DemoServer;
  let production: DemoServer;
  let renderer: { url: string; close: () => Promise<void> };
  let h: DesktopHarness;
  let stagingId: string;
  let productionId: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-desktop-demo-'));
    [staging, production] = await Promise.all([startDemo(dir), startDemo(dir)]);
    renderer = await serveRenderer(await buildDesktop());
    h = await openDesktop(renderer.url, { safeStorage: aesSafeStorage('gnome_libsecret'), burstWindowMs: 500 });
    stagingId = (await h.services.addEnvironment({ name: 'Staging', baseUrl: staging.baseUrl, colour: '#2563eb', isProduction: false, group: 'EU' })).id;
    productionId = (await h.services.addEnvironment({ name: 'Production', baseUrl: production.baseUrl, colour: '#dc2626', isProduction: true, group: 'EU', favourite: true })).id;
  }, 300_000);

  afterAll(async () => {
    await h?.close();
    await renderer?.close();
    await Promise.all([staging?.stop(), production?.stop()]);
    await rm(dir, { recursive: true, force: true });
  });

  it('logs in to both, shows live data, and the inbox receives failures from each server', async () => {
    const p = h.page;
    await p.goto(renderer.url);
    for (const [name, id] of [['Staging', stagingId], ['Production', productionId]] as const) {
      await p.getByTestId(`env-${name}`).getByRole('button').first().click();
      const cred = operateCredential(name === 'Production' ? production.output() : staging.output());
      await p.getByTestId('login-username').fill(cred.username);
      await p.getByTestId('login-password').fill(cred.password);
      await p.getByTestId('login-submit').click();
      await p.getByTestId('dashboard-host').waitFor();
      await expect.poll(() => p.getByTestId(`env-status-${name}`).textContent(), { timeout: 15_000 }).toBe('Connected');
      expect(h.services.sessionView(id).canManage).toBe(true);
    }
    // Failures on demand (the demo's own background activity adds more).
    const ids = [await staging.dispatch('failing'), await production.dispatch('failing'), await production.dispatch('timeout')];
    await expect.poll(() => ids.filter((id) => h.services.inboxList().some((i) => i.taskId === id)).length, { timeout: 20_000 }).toBe(3);
    await p.waitForTimeout(800);
    await p.screenshot({ path: `${SHOTS}/overview-light.png` });
    await p.emulateMedia({ colorScheme: 'dark' });
    await p.waitForTimeout(300);
    await p.screenshot({ path: `${SHOTS}/overview-dark.png` });
    await p.emulateMedia({ colorScheme: 'light' });
    expect(h.notifications.some((n) => n.environmentId === stagingId)).toBe(true);
    expect(h.notifications.some((n) => n.environmentId === productionId && n.isProduction)).toBe(true);
  }, 90_000);

  it('jumps from the inbox to the failed task of the right environment', async () => {
    const p = h.page;
    await p.getByTestId('open-inbox').click();
    const first = p.getByTestId('inbox-item-Staging').first();
    await first.locator('.desk-inbox__open').click();
    await expect.poll(() => p.getByTestId('active-env').textContent()).toBe('Staging');
    await expect.poll(() => p.locator('main').textContent(), { timeout: 10_000 }).toMatch(/Failed|Timeout/);
    await p.waitForTimeout(500);
    await p.screenshot({ path: `${SHOTS}/task-from-inbox-light.png` });
  });

  it('runs a management action only after a confirmation naming the environment, typed for production', async () => {
    const p = h.page;
    if (h.services.sessionView(productionId).auth !== 'authenticated') await h.services.loginWithPassword(productionId, 'operator', 'operator', false);
    if ((await p.getByTestId('active-env').count()) === 0) await p.goto(renderer.url);
    // A durable schedule of the production demo, live (not cancelled).
    const page = await h.services.call(productionId, 'tasks.list', { isRecurring: true, pageSize: 100 });
    const schedule = page.items.find((t) => t.occurrenceMode === 'Durable' && !t.parentTaskId && t.status !== 'Cancelled');
    expect(schedule, 'the demo has a durable schedule').toBeDefined();
    h.services.openDeepLink(`svc-monitor://Production/tasks/${schedule!.id}`);
    await expect.poll(() => p.getByTestId('active-env').textContent()).toBe('Production');
    const cancel = p.getByRole('button', { name: 'Cancel schedule' });
    await cancel.waitFor({ timeout: 10_000 });

    // Cancel in the dialog: nothing changes.
    await cancel.click();
    await p.getByTestId('confirm-dialog').waitFor();
    expect(await p.getByTestId('confirm-dialog').textContent()).toContain('Production');
    await p.getByTestId('confirm-cancel').click();
    await expect.poll(() => p.locator('.mgmt [role="status"]').filter({ hasText: 'nothing was changed' }).count()).toBe(1);
    expect((await h.services.call(productionId, 'tasks.get', { id: schedule!.id })).status).not.toBe('Cancelled');

    // Production: the button stays disabled until the environment name is typed.
    await cancel.click();
    await p.getByTestId('confirm-dialog').waitFor();
    expect(await p.getByTestId('confirm-ok').isDisabled()).toBe(true);
    await p.getByTestId('confirm-typed').fill('Prod');
    expect(await p.getByTestId('confirm-ok').isDisabled()).toBe(true);
    await p.getByTestId('confirm-typed').fill('Production');
    await p.screenshot({ path: `${SHOTS}/management-confirmation-light.png` });
    await p.getByTestId('confirm-ok').click();
    await expect.poll(() => p.locator('.mgmt [role="status"]').filter({ hasText: 'Succeeded' }).count(), { timeout: 10_000 }).toBe(1);
    expect((await h.services.call(productionId, 'tasks.get', { id: schedule!.id })).status).toBe('Cancelled');
  });
});
