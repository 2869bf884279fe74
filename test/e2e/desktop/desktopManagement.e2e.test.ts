import { screenshotDir } from '../screenshotDir.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aesSafeStorage } from '../../main/support/aesSafeStorage.js';
import { startFullHost, type FullHost } from '../../main/support/fullHost.js';
import { buildDesktop, openDesktop, serveRenderer, type DesktopHarness } from './desktopHarness.js';

const SHOTS = screenshotDir('desktop');
const CREDENTIALS = { username: 'viewer', password: 'read-pw', managementUsername: 'operator', managementPassword: 'operate-pw', enableManagementEndpoints: true };

describe('desktop console: management actions behind a confirmation naming the environment', () => {
  let dir: string;
  let staging: FullHost;
  let production: FullHost;
  let renderer: { url: string; close: () => Promise<void> };
  let h: DesktopHarness;
  let stagingId: string;
  let productionId: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-desktop-mgmt-'));
    renderer = await serveRenderer(await buildDesktop());
    staging = await startFullHost(dir, CREDENTIALS);
    production = await startFullHost(dir, CREDENTIALS);
    h = await openDesktop(renderer.url, { safeStorage: aesSafeStorage('gnome_libsecret') });
    stagingId = (await h.services.addEnvironment({ name: 'Staging', baseUrl: staging.baseUrl, colour: '#2563eb', isProduction: false })).id;
    productionId = (await h.services.addEnvironment({ name: 'Production', baseUrl: production.baseUrl, colour: '#dc2626', isProduction: true })).id;
  }, 300_000);

  afterAll(async () => {
    await h?.close();
    await renderer?.close();
    await staging?.close();
    await production?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('shows no management action to a read-only session', async () => {
    const id = staging.seedSchedule('nightly-staging');
    await h.services.loginWithPassword(stagingId, 'viewer', 'read-pw', false);
    const p = h.page;
    await p.goto(renderer.url);
    h.services.openDeepLink(`svc-monitor://Staging/tasks/${id}`);
    await expect.poll(() => p.locator('main').textContent(), { timeout: 10_000 }).toContain('nightly-staging');
    expect(await p.getByRole('button', { name: 'Cancel schedule' }).count()).toBe(0);
  });

  it('non-production: a plain confirmation naming the environment; Cancel changes nothing, confirm runs it', async () => {
    const p = h.page;
    const id = staging.seedSchedule('hourly-staging');
    await h.services.logout(stagingId);
    await h.services.loginWithPassword(stagingId, 'operator', 'operate-pw', false);
    h.services.openDeepLink(`svc-monitor://Staging/tasks/${id}`);
    const cancel = p.getByRole('button', { name: 'Cancel schedule' });
    await cancel.waitFor({ timeout: 10_000 });
    await cancel.click();
    await p.getByTestId('confirm-dialog').waitFor();
    expect(await p.getByTestId('confirm-dialog').locator('h2').textContent()).toBe('Cancel schedule in Staging?');
    expect(await p.getByTestId('confirm-typed').count()).toBe(0);
    await p.getByTestId('confirm-cancel').click();
    await expect.poll(() => p.locator('.mgmt [role="status"]').filter({ hasText: 'nothing was changed' }).count()).toBe(1);
    expect((await h.services.call(stagingId, 'tasks.get', { id })).status).toBe('Pending');

    await cancel.click();
    await p.getByTestId('confirm-ok').click();
    await expect.poll(() => p.locator('.mgmt [role="status"]').filter({ hasText: 'Succeeded' }).count(), { timeout: 10_000 }).toBe(1);
    expect((await h.services.call(stagingId, 'tasks.get', { id })).status).toBe('Cancelled');
  });

  it('production: the action stays disabled until the environment name is typed', async () => {
    const p = h.page;
    const id = production.seedSchedule('nightly-billing');
    await h.services.loginWithPassword(productionId, 'operator', 'operate-pw', false);
    h.services.openDeepLink(`svc-monitor://Production/tasks/${id}`);
    await expect.poll(() => p.getByTestId('active-env').textContent()).toBe('Production');
    const cancel = p.getByRole('button', { name: 'Cancel schedule' });
    await cancel.waitFor({ timeout: 10_000 });
    await cancel.click();
    await p.getByTestId('confirm-dialog').waitFor();
    expect(await p.getByTestId('confirm-dialog').textContent()).toContain('This is a production environment.');
    expect(await p.getByTestId('confirm-ok').isDisabled()).toBe(true);
    await p.getByTestId('confirm-typed').fill('production');
    expect(await p.getByTestId('confirm-ok').isDisabled()).toBe(true);
    await p.getByTestId('confirm-typed').fill('Production');
    expect(await p.getByTestId('confirm-ok').isDisabled()).toBe(false);
    await p.screenshot({ path: `${SHOTS}/management-confirmation-light.png` });
    await p.getByTestId('confirm-ok').click();
    await expect.poll(() => p.locator('.mgmt [role="status"]').filter({ hasText: 'Succeeded' }).count(), { timeout: 10_000 }).toBe(1);
    expect((await h.services.call(productionId, 'tasks.get', { id })).status).toBe('Cancelled');
  });
});
