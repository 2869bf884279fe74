import { screenshotDir, settleForDocs } from '../screenshotDir.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandaloneHost, type MonitoringHost } from '../../fixtures/main/monitoringHost.js';
import { useTwoEnvironmentDesktop } from './desktopHarness.js';

const SHOTS = screenshotDir('desktop');

describe('desktop console renderer in Chromium, bridge served by the real main services (standalone hosts)', () => {
  const desk = useTwoEnvironmentDesktop<MonitoringHost>({
    tempPrefix: 'svc-desktop-e2e-',
    start: async (dir) => [
      await startStandaloneHost(dir, { username: 'ops', password: 'staging-pw', loginRateLimit: false }),
      await startStandaloneHost(dir, { username: 'ops', password: 'prod-pw', loginRateLimit: false }),
    ],
    stop: (host) => host.close(),
    environments: { group: 'EU' },
    production: { favourite: true },
  });
  let shortLived: MonitoringHost | undefined;

  beforeAll(async () => {
    shortLived = await startStandaloneHost(desk.dir, { username: 'ops', password: 'short-pw', jwtExpirationHours: 3 / 3600, loginRateLimit: false });
    await desk.h.services.addEnvironment({ name: 'Short Sessions', baseUrl: shortLived.baseUrl, colour: '#16a34a', isProduction: false });
  });

  afterAll(async () => {
    await shortLived?.close();
  });

  async function login(password: string): Promise<void> {
    const p = desk.h.page;
    await p.getByTestId('login-username').fill('ops');
    await p.getByTestId('login-password').fill(password);
    await p.getByTestId('login-submit').click();
  }

  it('lists the environments with live status, logs in per environment and shows the dashboard', async () => {
    const p = desk.h.page;
    await p.goto(desk.url);
    await expect.poll(() => p.getByTestId('env-status-Staging').textContent()).toBe('Logged out');
    await expect.poll(() => p.getByTestId('env-gap-Staging').textContent()).toBe('⚠ not watching: not logged in');
    await expect.poll(() => p.getByTestId('active-env').textContent()).toBe('Staging');
    await p.screenshot({ path: `${SHOTS}/login-light.png` });
    await p.getByTestId('login-password').fill('wrong');
    await p.getByTestId('login-username').fill('ops');
    await p.getByTestId('login-submit').click();
    await expect.poll(() => p.getByTestId('login-error').textContent()).toContain('invalid credentials');
    await login('staging-pw');
    await p.getByTestId('dashboard-host').waitFor();
    // Standalone hosts have no hub: the environment polls.
    await expect.poll(() => p.getByTestId('env-status-Staging').textContent()).toBe('Polling');
    // Polling is a gap too: failures arrive late (back-fill), not live.
    await expect.poll(() => p.getByTestId('env-gap-Staging').textContent()).toMatch(/^⚠ not watching: only polling/);
    await expect.poll(() => p.getByTestId('current-user').textContent()).toContain('ops');
    expect(desk.h.services.requireSession(desk.h.services.environments()[0]!.id).view().auth).toBe('authenticated');
  });

  it('switches with Ctrl+K (fuzzy), tints the chrome with the environment colour and flags production', async () => {
    const p = desk.h.page;
    await p.keyboard.press('Control+k');
    await p.getByTestId('switcher-input').fill('prdct');
    await p.screenshot({ path: `${SHOTS}/switcher-light.png` });
    await p.keyboard.press('Enter');
    await expect.poll(() => p.getByTestId('active-env').textContent()).toBe('Production');
    await p.getByTestId('production-banner').waitFor();
    const bar = await p.getByTestId('env-bar').evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(bar).toBe('rgb(220, 38, 38)');
    const border = await p.locator('.desk-envs').evaluate((el) => getComputedStyle(el).borderRightColor);
    expect(border).toBe('rgb(220, 38, 38)');
    await login('prod-pw');
    await p.getByTestId('dashboard-host').waitFor();
    await settleForDocs(p, 500);
    await p.screenshot({ path: `${SHOTS}/production-overview-light.png` });

    await p.getByTestId('env-Staging').getByRole('button').first().click();
    await expect.poll(() => p.getByTestId('active-env').textContent()).toBe('Staging');
    expect(await p.getByTestId('production-banner').count()).toBe(0);
    expect(await p.getByTestId('env-bar').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(37, 99, 235)');
  });

  it('prompts for a re-login when the token expires', async () => {
    const p = desk.h.page;
    await p.getByTestId('env-Short Sessions').getByRole('button').first().click();
    await login('short-pw');
    await p.getByTestId('dashboard-host').waitFor();
    await expect.poll(() => p.getByTestId('relogin-reason').textContent(), { timeout: 8_000 }).toContain('The session expired');
    await expect.poll(() => p.getByTestId('env-status-Short Sessions').textContent()).toBe('Log in again');
    await p.screenshot({ path: `${SHOTS}/relogin-light.png` });
    await login('short-pw');
    await p.getByTestId('dashboard-host').waitFor();
  });

  it('exports the environment list without secrets and validates an import in main', async () => {
    const p = desk.h.page;
    await p.getByTestId('env-import-export').click();
    await expect.poll(() => p.getByTestId('export-json').inputValue()).toContain('"Production"');
    const exported = await p.getByTestId('export-json').inputValue();
    expect(exported).not.toMatch(/pw|token|password/i);
    await p.getByTestId('import-json').fill(exported.replace('"Staging"', '"Staging copy"').replace(/"baseUrl": "http:\/\/127\.0\.0\.1:\d+"/, '"baseUrl": "file:///etc/passwd"'));
    await p.getByTestId('import-run').click();
    await expect.poll(() => p.locator('[data-testid="import-export"] .form-error').textContent()).toMatch(/baseUrl must be an http/);
    await p.keyboard.press('Escape');
    await p.locator('.desk-overlay').click({ position: { x: 5, y: 5 } });
    expect(desk.h.pageErrors.filter((e) => /Content Security Policy|Refused/.test(e))).toEqual([]);
  });
});
