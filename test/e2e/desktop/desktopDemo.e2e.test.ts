import { screenshotDir, settleForDocs } from '../screenshotDir.js';
import { describe, expect, it } from 'vitest';
import { startDemo, type CliProcess } from '../../fixtures/demoProcess.js';
import { openScheduleActions, useTwoEnvironmentDesktop } from './desktopHarness.js';

const SHOTS = screenshotDir('desktop');

/** The operate credential the demo prints (management enabled). */
function operateCredential(output: string): { username: string; password: string } {
  const m = /operate[^\n]*?\b([A-Za-z0-9_.-]+)\s*\/\s*([^\s,;)]+)/i.exec(output);
  if (!m) throw new Error(`the demo output names no operate credential:\n${output}`);
  return { username: m[1]!, password: m[2]! };
}

describe('desktop console against two real demo servers', () => {
  const desk = useTwoEnvironmentDesktop<CliProcess>({
    tempPrefix: 'svc-desktop-demo-',
    start: (dir) => Promise.all([startDemo(dir), startDemo(dir)]),
    stop: (demo) => demo.stop(),
    desktop: { burstWindowMs: 500 },
    environments: { group: 'EU' },
    production: { favourite: true },
  });

  it('logs in to both, shows live data, and the inbox receives failures from each server', async () => {
    const p = desk.h.page;
    await p.goto(desk.url);
    for (const [name, id] of [['Staging', desk.stagingId], ['Production', desk.productionId]] as const) {
      await p.getByTestId(`env-${name}`).getByRole('button').first().click();
      const cred = operateCredential(name === 'Production' ? desk.production.output() : desk.staging.output());
      await p.getByTestId('login-username').fill(cred.username);
      await p.getByTestId('login-password').fill(cred.password);
      await p.getByTestId('login-submit').click();
      await p.getByTestId('dashboard-host').waitFor();
      await expect.poll(() => p.getByTestId(`env-status-${name}`).textContent(), { timeout: 15_000 }).toBe('Connected');
      expect(desk.h.services.requireSession(id).view().canManage).toBe(true);
    }
    // Failures on demand (the demo's own background activity adds more).
    const ids = [await desk.staging.dispatch('failing'), await desk.production.dispatch('failing'), await desk.production.dispatch('timeout')];
    await expect.poll(() => ids.filter((id) => desk.h.services.inbox.list().some((i) => i.taskId === id)).length, { timeout: 20_000 }).toBe(3);
    await settleForDocs(p, 800);
    await p.screenshot({ path: `${SHOTS}/overview-light.png` });
    await p.emulateMedia({ colorScheme: 'dark' });
    await settleForDocs(p, 300);
    await p.screenshot({ path: `${SHOTS}/overview-dark.png` });
    await p.emulateMedia({ colorScheme: 'light' });
    expect(desk.h.notifications.some((n) => n.environmentId === desk.stagingId)).toBe(true);
    expect(desk.h.notifications.some((n) => n.environmentId === desk.productionId && n.isProduction)).toBe(true);
  }, 90_000);

  it('jumps from the inbox to the failed task of the right environment', async () => {
    const p = desk.h.page;
    await p.getByTestId('open-inbox').click();
    const first = p.getByTestId('inbox-item-Staging').first();
    // The inbox lists newest first, as main's inbox does: the first Staging item is this task.
    const expected = desk.h.services.inbox.list().filter((i) => i.environmentName === 'Staging')[0]!.taskId;
    await first.locator('.desk-inbox__open').click();
    await expect.poll(() => p.getByTestId('active-env').textContent()).toBe('Staging');
    await expect.poll(() => p.locator('main').textContent(), { timeout: 10_000 }).toMatch(/Failed|Timeout/);
    const idRow = p.locator('dt', { hasText: /^Id$/ }).locator('xpath=following-sibling::dd[1]');
    await expect.poll(async () => ((await idRow.textContent()) ?? '').trim().split(/\s+/)[0], { timeout: 10_000 }).toBe(expected);
    await settleForDocs(p, 500);
    await p.screenshot({ path: `${SHOTS}/task-from-inbox-light.png` });
  });

  it('copies the task id to the clipboard (permission granted by main) and saves a mute through the cloning bridge', async () => {
    const p = desk.h.page;
    // The task the inbox opened (previous test): its id row has a Copy button.
    const idRow = p.locator('dt', { hasText: /^Id$/ }).locator('xpath=following-sibling::dd[1]');
    await idRow.waitFor({ timeout: 10_000 });
    const taskId = ((await idRow.textContent()) ?? '').trim().split(/\s+/)[0]!;
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
    await p.getByRole('button', { name: 'Copy task id' }).click();
    await expect.poll(() => p.getByText('Copied to clipboard').count()).toBe(1);
    expect(await p.evaluate(() => navigator.clipboard.readText())).toBe(taskId);
    // Muting sends settings spread from reactive state: they must survive structured clone.
    await p.getByTestId('env-mute-Staging').click();
    await expect.poll(() => desk.h.services.notifier.getSettings().mutedEnvironmentIds).toEqual([desk.stagingId]);
    // The user unmutes once the button shows the mute (the window has the saved settings back).
    await expect.poll(() => p.getByTestId('env-mute-Staging').getAttribute('aria-pressed')).toBe('true');
    await p.getByTestId('env-mute-Staging').click();
    await expect.poll(() => desk.h.services.notifier.getSettings().mutedEnvironmentIds).toEqual([]);
  });

  it('shows a chart tooltip with its colour markers under the window CSP, with no violation reported', async () => {
    const p = desk.h.page;
    await p.getByRole('link', { name: /Overview/ }).first().click();
    const chart = p.getByRole('img', { name: 'Tasks over time chart' });
    await chart.waitFor({ timeout: 15_000 });
    // In the shell the half-width charts stack: this one may start below the fold.
    await chart.scrollIntoViewIfNeeded();
    const box = (await chart.boundingBox())!;
    // Sweep across the plot until the axis tooltip shows.
    const tooltip = async () =>
      chart.evaluate((el) => {
        const tip = Array.from(el.querySelectorAll('div')).find((d) => d.querySelector('span') && getComputedStyle(d).display !== 'none' && getComputedStyle(d).opacity !== '0' && (d.textContent ?? '').includes('Total'));
        const marker = tip?.querySelector('span');
        return tip ? { text: tip.textContent ?? '', markerWidth: marker ? marker.getBoundingClientRect().width : 0 } : undefined;
      });
    let shown: { text: string; markerWidth: number } | undefined;
    for (let x = 0.9; x >= 0.2 && !shown; x -= 0.1) {
      await p.mouse.move(box.x + box.width * x, box.y + box.height * 0.6);
      await expect.poll(tooltip, { timeout: 1_500 }).toBeDefined().catch(() => undefined);
      shown = await tooltip();
    }
    expect(shown, 'an axis tooltip').toBeDefined();
    expect(shown!.text).toMatch(/Completed/);
    // The colour dot is an inline style attribute: a CSP without style-src-attr blocks it.
    expect(shown!.markerWidth).toBeGreaterThan(0);
    expect(await desk.h.cspViolations()).toEqual([]);
    expect(desk.h.pageErrors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
  });

  it('runs a management action only after a confirmation naming the environment, typed for production', async () => {
    const p = desk.h.page;
    if (desk.h.services.requireSession(desk.productionId).view().auth !== 'authenticated') await desk.h.services.requireSession(desk.productionId).loginWithPassword('operator', 'operator', false);
    if ((await p.getByTestId('active-env').count()) === 0) await p.goto(desk.url);
    // A durable schedule of the production demo, live (not cancelled).
    const page = await desk.h.services.proxy.call(desk.productionId, 'tasks.list', { isRecurring: true, pageSize: 100 });
    const schedule = page.items.find((t) => t.occurrenceMode === 'Durable' && !t.parentTaskId && t.status !== 'Cancelled');
    expect(schedule, 'the demo has a durable schedule').toBeDefined();
    const cancel = await openScheduleActions(desk.h, 'Production', schedule!.id);

    // Cancel in the dialog: nothing changes.
    await cancel.click();
    await p.getByTestId('confirm-dialog').waitFor();
    expect(await p.getByTestId('confirm-dialog').textContent()).toContain('Production');
    await p.getByTestId('confirm-cancel').click();
    await expect.poll(() => p.locator('.mgmt [role="status"]').filter({ hasText: 'nothing was changed' }).count()).toBe(1);
    expect((await desk.h.services.proxy.call(desk.productionId, 'tasks.get', { id: schedule!.id })).status).not.toBe('Cancelled');

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
    expect((await desk.h.services.proxy.call(desk.productionId, 'tasks.get', { id: schedule!.id })).status).toBe('Cancelled');
  });
});
