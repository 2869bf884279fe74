import { beforeAll, describe, expect, it } from 'vitest';
import type { ManagementResponse } from '../../../server/src/contracts/task.js';
import { startFullHost, type FullHost } from '../../fixtures/main/fullHost.js';
import { seriousAccessibilityViolations } from '../accessibility.js';
import { useTwoEnvironmentDesktop } from './desktopHarness.js';

const CREDENTIALS = { username: 'viewer', password: 'read-pw', managementUsername: 'operator', managementPassword: 'operate-pw', enableManagementEndpoints: true };

/** The Audit page (the renderer page the web dashboard shares) in the desktop console, against a real host's operator audit. */
describe('desktop console: the Audit page against a real host with audit records', () => {
  const desk = useTwoEnvironmentDesktop<FullHost>({
    tempPrefix: 'svc-desktop-audit-',
    start: async (dir) => [await startFullHost(dir, CREDENTIALS), await startFullHost(dir, CREDENTIALS)],
    stop: (host) => host.close(),
  });
  let schedule = '';

  beforeAll(async () => {
    const session = desk.h.services.requireSession(desk.stagingId);
    // A refused sign-in, then the operator's: two signIn records.
    await expect(session.loginWithPassword('operator', 'wrong', false)).rejects.toThrow(/invalid credentials/);
    await session.loginWithPassword('operator', 'operate-pw', false);
    // A schedule cancelled (ok), then cancelled again (refused, 409).
    schedule = desk.staging.seedSchedule('nightly-audit');
    const cancel = async () => ((await desk.h.services.manage(desk.stagingId, 'management.cancel', { id: schedule }, '')) as ManagementResponse).status;
    expect(await cancel()).toBe('Succeeded');
    expect(await cancel()).toBe('Conflict');
    await desk.h.page.goto(desk.url);
  }, 120_000);

  it('lists the records newest first with who, what, target and result, opened by a deep link', async () => {
    const p = desk.h.page;
    desk.h.services.openDeepLink('svc-monitor://Staging/audit');
    await expect.poll(() => p.getByTestId('copy-link').getAttribute('data-route')).toBe('/audit');
    const rows = p.getByTestId('audit-row');
    await expect.poll(() => rows.count()).toBe(4);
    const actions = await p.getByTestId('audit-action').allTextContents();
    expect(actions.map((a) => a.trim())).toEqual(['cancel', 'cancel', 'signIn', 'signIn']);
    const results = (await p.getByTestId('audit-result').allTextContents()).map((r) => r.replace(/\s+/g, ' ').trim());
    expect(results).toEqual(['refused (409)', 'ok (200)', 'ok (200)', 'refused (401)']);
    expect((await p.getByTestId('audit-actor').allTextContents()).every((a) => a.includes('operator'))).toBe(true);
    expect(await rows.first().textContent()).toContain(schedule.slice(0, 8));
  });

  it('filters by action from the keyboard-operable form', async () => {
    const p = desk.h.page;
    await p.getByLabel('Action').selectOption('signIn');
    await expect.poll(() => p.getByTestId('audit-action').allTextContents()).toEqual(['signIn', 'signIn']);
    await p.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => p.getByTestId('audit-row').count()).toBe(4);
  });

  it('has no serious or critical axe-core violations', async () => {
    expect(await seriousAccessibilityViolations(desk.h.page, '[data-testid="dashboard-host"]')).toEqual([]);
  });
});
