import { screenshotDir } from '../screenshotDir.js';
import { describe, expect, it } from 'vitest';
import { startFullHost, type FullHost } from '../../fixtures/main/fullHost.js';
import { openScheduleActions, useTwoEnvironmentDesktop } from './desktopHarness.js';

const SHOTS = screenshotDir('desktop');
const CREDENTIALS = { username: 'viewer', password: 'read-pw', managementUsername: 'operator', managementPassword: 'operate-pw', enableManagementEndpoints: true };

describe('desktop console: management actions behind a confirmation naming the environment', () => {
  const desk = useTwoEnvironmentDesktop<FullHost>({
    tempPrefix: 'svc-desktop-mgmt-',
    start: async (dir) => [await startFullHost(dir, CREDENTIALS), await startFullHost(dir, CREDENTIALS)],
    stop: (host) => host.close(),
  });

  it('shows no management action to a read-only session', async () => {
    const id = desk.staging.seedSchedule('nightly-staging');
    await desk.h.services.requireSession(desk.stagingId).loginWithPassword('viewer', 'read-pw', false);
    const p = desk.h.page;
    await p.goto(desk.url);
    desk.h.services.openDeepLink(`svc-monitor://Staging/tasks/${id}`);
    await expect.poll(() => p.locator('main').textContent(), { timeout: 10_000 }).toContain('nightly-staging');
    expect(await p.getByRole('button', { name: 'Cancel schedule' }).count()).toBe(0);
  });

  it('non-production: a plain confirmation naming the environment; Cancel changes nothing, confirm runs it', async () => {
    const p = desk.h.page;
    const id = desk.staging.seedSchedule('hourly-staging');
    await desk.h.services.requireSession(desk.stagingId).logout();
    await desk.h.services.requireSession(desk.stagingId).loginWithPassword('operator', 'operate-pw', false);
    const cancel = await openScheduleActions(desk.h, 'Staging', id);
    await cancel.click();
    await p.getByTestId('confirm-dialog').waitFor();
    expect(await p.getByTestId('confirm-dialog').locator('h2').textContent()).toBe('Cancel schedule in Staging?');
    expect(await p.getByTestId('confirm-typed').count()).toBe(0);
    await p.getByTestId('confirm-cancel').click();
    await expect.poll(() => p.locator('.mgmt [role="status"]').filter({ hasText: 'nothing was changed' }).count()).toBe(1);
    expect((await desk.h.services.proxy.call(desk.stagingId, 'tasks.get', { id })).status).toBe('Pending');

    await cancel.click();
    await p.getByTestId('confirm-ok').click();
    await expect.poll(() => p.locator('.mgmt [role="status"]').filter({ hasText: 'Succeeded' }).count(), { timeout: 10_000 }).toBe(1);
    expect((await desk.h.services.proxy.call(desk.stagingId, 'tasks.get', { id })).status).toBe('Cancelled');
  });

  it('production: the action stays disabled until the environment name is typed', async () => {
    const p = desk.h.page;
    const id = desk.production.seedSchedule('nightly-billing');
    await desk.h.services.requireSession(desk.productionId).loginWithPassword('operator', 'operate-pw', false);
    const cancel = await openScheduleActions(desk.h, 'Production', id);
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
    expect((await desk.h.services.proxy.call(desk.productionId, 'tasks.get', { id })).status).toBe('Cancelled');
  });
});
