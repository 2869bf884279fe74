import { screenshotDir } from '../screenshotDir.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { startFullHost, svcEvent, type FullHost } from '../../fixtures/main/fullHost.js';
import { useTwoEnvironmentDesktop } from './desktopHarness.js';

const SHOTS = screenshotDir('desktop');

describe('desktop console: live status and the failure inbox across two hubs', () => {
  const desk = useTwoEnvironmentDesktop<FullHost>({
    tempPrefix: 'svc-desktop-live-',
    start: async (dir) => [await startFullHost(dir, { username: 'ops', password: 'staging-pw' }), await startFullHost(dir, { username: 'ops', password: 'prod-pw' })],
    stop: (host) => host.close(),
    desktop: { burstWindowMs: 300, colorScheme: 'dark' },
    environments: { group: 'EU' },
  });

  beforeAll(async () => {
    await desk.h.services.requireSession(desk.stagingId).loginWithPassword('ops', 'staging-pw', true);
    await desk.h.services.requireSession(desk.productionId).loginWithPassword('ops', 'prod-pw', true);
  });

  it('shows each environment connected, then receives a failure from each server in the inbox', async () => {
    const p = desk.h.page;
    await p.goto(desk.url);
    await expect.poll(() => p.getByTestId('env-status-Staging').textContent(), { timeout: 10_000 }).toBe('Connected');
    await expect.poll(() => p.getByTestId('env-status-Production').textContent(), { timeout: 10_000 }).toBe('Connected');

    desk.staging.emit(svcEvent('Failed', 'Billing.Invoices.SendInvoice'));
    for (let i = 0; i < 3; i++) desk.production.emit(svcEvent('Failed', 'Reports.Nightly.Build'));
    // A task whose last attempt timed out: Timeout, then Failed, for the same task (one item).
    const timedOut = svcEvent('Timeout', 'Payments.Settle');
    desk.production.emit(timedOut);
    desk.production.emit({ ...timedOut, kind: 'Failed', severity: 'Error', message: 'Task failed: timed out' });
    await expect.poll(() => p.getByTestId('inbox-unread').textContent(), { timeout: 10_000 }).toBe('5');
    await expect.poll(() => desk.h.notifications.length, { timeout: 5_000 }).toBe(2);
    expect(desk.h.notifications.map((n) => n.title).sort()).toEqual(['⚠ PRODUCTION · 4 tasks failed in Production', 'Task failed in Staging'].sort());
    expect(desk.h.badge.at(-1)).toBe(5);

    // A click on the Production notification opens the inbox filtered to that burst.
    const prodNote = desk.h.notifications.find((n) => n.environmentId === desk.productionId)!;
    desk.h.services.open(prodNote.target);
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
    expect(desk.h.badge.at(-1)).toBe(4);
    await p.getByTestId('inbox-mark-all').click();
    await expect.poll(() => p.getByTestId('inbox-unread').count()).toBe(0);
    expect(desk.h.badge.at(-1)).toBe(0);

    // Jump from an inbox item to its task: the environment switches and that task's page opens.
    const expected = desk.h.services.inbox.list().filter((i) => i.environmentName === 'Staging')[0]!.taskId;
    await p.getByTestId('inbox-item-Staging').first().locator('.desk-inbox__open').click();
    await expect.poll(() => p.getByTestId('active-env').textContent()).toBe('Staging');
    await p.getByTestId('dashboard-host').waitFor();
    // The fake host has no row for the event's task: the page's breadcrumb names the id it opened.
    const crumbId = p.getByRole('navigation', { name: 'Breadcrumb' }).locator('.mono');
    await expect.poll(() => crumbId.textContent(), { timeout: 10_000 }).toBe(expected);
  });

  it('mutes an environment: its failures reach the inbox but neither a notification nor the badge', async () => {
    const p = desk.h.page;
    await p.getByTestId('env-mute-Production').click();
    await expect.poll(() => p.getByTestId('env-mute-Production').getAttribute('aria-pressed')).toBe('true');
    const before = desk.h.notifications.length;
    desk.production.emit(svcEvent('Failed'));
    await expect.poll(() => desk.h.services.inbox.list().length).toBe(6);
    // The failure is in the inbox: closing its burst now is what the window would do later.
    desk.h.services.notifier.flushAll();
    expect(desk.h.notifications.length).toBe(before);
    expect(desk.h.badge.at(-1)).toBe(0);
    await p.screenshot({ path: `${SHOTS}/environments-dark.png` });
  });

  it('mutes Staging for 1 h and limits notifications to production from the inbox settings', async () => {
    const p = desk.h.page;
    await p.getByTestId('env-mute-Production').click(); // unmute from the previous test
    await expect.poll(() => desk.h.services.notifier.getSettings().mutedEnvironmentIds).toEqual([]);
    await p.getByTestId('env-mute-hour-Staging').click();
    await expect.poll(() => p.getByTestId('env-mute-hour-Staging').getAttribute('aria-pressed')).toBe('true');
    const until = Date.parse(desk.h.services.notifier.getSettings().mutedUntil?.[desk.stagingId] ?? '');
    expect(until - Date.now()).toBeGreaterThan(3_500_000);
    expect(until - Date.now()).toBeLessThanOrEqual(3_600_000);
    await p.getByTestId('open-inbox').click();
    await p.getByTestId('notify-production-only').check();
    await expect.poll(() => desk.h.services.notifier.getSettings().productionOnly).toBe(true);
    await p.getByTestId('notify-production-only').uncheck();
    await expect.poll(() => desk.h.services.notifier.getSettings().productionOnly).toBe(false);
    await p.getByRole('button', { name: 'Close inbox' }).click();
  });

  it('opens a filtered list from a deep link and copies a link back to it', async () => {
    const p = desk.h.page;
    desk.h.services.openDeepLink('svc-monitor://Production/tasks?status=Failed');
    await expect.poll(() => p.getByTestId('active-env').textContent()).toBe('Production');
    // The embedded dashboard has routed to the filtered list before the user copies its link.
    await expect.poll(() => p.getByTestId('copy-link').getAttribute('data-route')).toMatch(/^\/tasks\?.*status=Failed/);
    await p.getByTestId('copy-link').click();
    await expect.poll(() => p.getByTestId('copy-link').textContent()).toMatch(/Link copied/);
    const link = await p.evaluate(() => navigator.clipboard.readText());
    expect(link).toMatch(/^svc-monitor:\/\/Production\/tasks\?.*status=Failed/);
    // The copied link opens the same page again (main parses and routes it).
    expect(desk.h.services.openDeepLink(link)).toMatchObject({ kind: 'route', environmentId: desk.productionId, path: expect.stringMatching(/^\/tasks\?.*status=Failed/) });
  });
});
