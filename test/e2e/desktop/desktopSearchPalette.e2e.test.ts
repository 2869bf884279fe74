import { beforeAll, describe, expect, it } from 'vitest';
import { startFullHost, type FullHost } from '../../fixtures/main/fullHost.js';
import { seriousAccessibilityViolations } from '../accessibility.js';
import { openScheduleActions, useTwoEnvironmentDesktop } from './desktopHarness.js';

const CREDENTIALS = { username: 'viewer', password: 'read-pw', managementUsername: 'operator', managementPassword: 'operate-pw', enableManagementEndpoints: true };

describe('desktop console: search across environments and the command palette (Chromium, real main services and hosts)', () => {
  const desk = useTwoEnvironmentDesktop<FullHost>({
    tempPrefix: 'svc-desktop-search-',
    start: async (dir) => [await startFullHost(dir, CREDENTIALS), await startFullHost(dir, CREDENTIALS)],
    stop: (host) => host.close(),
  });
  const seeded: Record<string, string> = {};

  beforeAll(async () => {
    const now = Date.now();
    seeded.staging = desk.staging.seedFailed(now - 60_000, 'Billing.Invoices.SendInvoice');
    seeded.production = desk.production.seedFailed(now - 30_000, 'Billing.Invoices.SendInvoice');
    seeded.schedule = desk.production.seedSchedule('nightly-billing');
    await desk.h.services.requireSession(desk.stagingId).loginWithPassword('operator', 'operate-pw', false);
    await desk.h.services.requireSession(desk.productionId).loginWithPassword('operator', 'operate-pw', false);
    // An environment whose host is not there: its part of a search says so, the others answer.
    await desk.h.services.addEnvironment({ name: 'Offline', baseUrl: 'http://127.0.0.1:9', colour: '#16a34a', isProduction: false });
    await desk.h.page.goto(desk.url);
    await desk.h.page.getByTestId('active-env').filter({ hasText: 'Staging' }).waitFor();
  }, 120_000);

  it('searches every environment at once, with progress and errors per environment; a result opens the task in its environment', async () => {
    const p = desk.h.page;
    await p.getByTestId('open-search').click();
    await p.getByLabel('Task id, type, key or failure fingerprint').fill('SendInvoice');
    await p.keyboard.press('Enter');
    await expect.poll(() => p.getByTestId('search-status').textContent()).toBe('2 tasks in 3 environments; 1 could not answer');
    expect(await p.getByTestId('search-env-Staging').textContent()).toMatch(/Staging\s*1 found/);
    expect(await p.getByTestId('search-env-Production').textContent()).toMatch(/Production\s*1 found/);
    expect(await p.getByTestId('search-env-Offline').locator('.desk-search__error').textContent()).toContain('Cannot reach http://127.0.0.1:9');
    const rows = p.getByTestId('search-hit');
    expect(await rows.count()).toBe(2);
    // Newest first: Production's failure is the newer.
    expect(await rows.first().textContent()).toContain('Production');
    await rows.first().getByRole('button', { name: `Open SendInvoice ${seeded.production} in Production` }).click();
    await expect.poll(() => p.getByTestId('active-env').textContent()).toBe('Production');
    await expect.poll(() => p.getByTestId('copy-link').getAttribute('data-route')).toBe(`/tasks/${seeded.production}`);
  });

  it('the palette (Ctrl+K) goes to a page of the active environment and searches across environments', async () => {
    const p = desk.h.page;
    await p.keyboard.press('Control+k');
    await p.getByTestId('switcher-input').fill('failed tasks');
    await p.keyboard.press('Enter');
    await expect.poll(() => p.getByTestId('copy-link').getAttribute('data-route')).toBe('/tasks?status=Failed');
    await p.keyboard.press('Control+k');
    await p.getByTestId('switcher-input').fill('nightly-billing');
    await p.getByTestId('palette-search').click();
    await expect.poll(() => p.getByTestId('search-status').textContent()).toBe('1 task in 3 environments; 1 could not answer');
    expect(await p.getByTestId('search-hit').textContent()).toContain('Production');
  });

  it('runs an action on the selected task from the palette behind the same typed confirmation for production', async () => {
    const p = desk.h.page;
    await openScheduleActions(desk.h, 'Production', seeded.schedule!);
    await p.keyboard.press('Control+k');
    await p.getByTestId('switcher-input').fill('cancel');
    await expect.poll(() => p.getByTestId('palette-manage:management.cancel').textContent()).toContain(`Cancel ${seeded.schedule!.slice(0, 8)} (Production)`);
    await p.keyboard.press('Enter');
    await p.getByTestId('confirm-dialog').waitFor();
    expect(await p.getByTestId('confirm-dialog').textContent()).toContain('This is a production environment.');
    expect(await p.getByTestId('confirm-ok').isDisabled()).toBe(true);
    // Cancelled: nothing changes.
    await p.getByTestId('confirm-cancel').click();
    await expect.poll(() => p.getByTestId('palette-notice').textContent()).toContain('nothing was changed');
    expect((await desk.h.services.proxy.call(desk.productionId, 'tasks.get', { id: seeded.schedule! })).status).toBe('Pending');
    await p.keyboard.press('Control+k');
    await p.getByTestId('switcher-input').fill('cancel');
    await p.keyboard.press('Enter');
    await p.getByTestId('confirm-typed').fill('Production');
    await p.getByTestId('confirm-ok').click();
    await expect.poll(() => p.getByTestId('palette-notice').textContent()).toContain('Succeeded');
    expect((await desk.h.services.proxy.call(desk.productionId, 'tasks.get', { id: seeded.schedule! })).status).toBe('Cancelled');
  });

  it('offers no actions to a session without the operate role', async () => {
    const p = desk.h.page;
    await desk.h.services.requireSession(desk.stagingId).logout();
    await desk.h.services.requireSession(desk.stagingId).loginWithPassword('viewer', 'read-pw', false);
    desk.h.services.openDeepLink(`svc-monitor://Staging/tasks/${seeded.staging}`);
    await expect.poll(() => p.getByTestId('copy-link').getAttribute('data-route')).toBe(`/tasks/${seeded.staging}`);
    await p.keyboard.press('Control+k');
    await p.getByTestId('switcher-input').fill('retry');
    expect(await p.locator('[data-testid^="palette-manage:"]').count()).toBe(0);
    await p.keyboard.press('Escape');
  });

  it('has no serious or critical axe-core violations on the search page and in the palette', async () => {
    const p = desk.h.page;
    await p.getByTestId('open-search').click();
    await p.getByTestId('search-page').waitFor();
    expect(await seriousAccessibilityViolations(p, '[data-testid="search-page"]')).toEqual([]);
    await p.keyboard.press('Control+k');
    await p.getByTestId('switcher').waitFor();
    expect(await seriousAccessibilityViolations(p, '[data-testid="switcher"]')).toEqual([]);
    await p.keyboard.press('Escape');
  });
});
