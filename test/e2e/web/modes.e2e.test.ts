import { buildWebDashboard } from '../../fixtures/buildOnce.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser } from './browser.js';
import { apiGet, demoDispatch, startCli, type CliProcess } from '../../fixtures/demoProcess.js';

const AUTH_OFF = { SVC_MONITOR_ENABLE_AUTHENTICATION: 'false' };

describe('authentication off, and the standalone registration (serve)', () => {
  let demo: CliProcess;
  let standalone: CliProcess;

  beforeAll(async () => {
    buildWebDashboard();
    demo = await startCli('demo', { env: AUTH_OFF, args: ['--demo-dispatch-endpoint'] });
    // `serve` reads the demo's database from a second process: no engine, no hub.
    standalone = await startCli('serve', { dbFile: demo.dbFile, env: AUTH_OFF });
  }, 240_000);
  afterAll(async () => {
    await standalone?.stop();
    await demo?.stop();
  });

  it('requireAuthentication=false: no login page, straight to the data, live hub connected', async () => {
    const config = await apiGet<{ requireAuthentication: boolean }>(demo.api, '/config');
    expect(config.requireAuthentication).toBe(false);
    const b = await openBrowser('light');
    try {
      const { page } = b;
      await page.goto(`${demo.base}/login`);
      await page.waitForSelector('[data-testid="kpi-today"]');
      expect(new URL(page.url()).pathname).toBe('/svc-monitoring/');
      expect(await page.isVisible('[data-testid="auth-off"]')).toBe(true);
      expect(await page.$('[data-testid="logout"]')).toBeNull();
      expect(await page.$('input[name="password"]')).toBeNull();
      await page.waitForSelector('[data-testid="connection-indicator"][data-state="connected"]', { timeout: 15_000 });
    } finally {
      await b.close();
    }
  });

  it('standalone: the hub is absent (404), the dashboard says it polls and refreshes the list without reload', async () => {
    const b = await openBrowser('light');
    try {
      const { page } = b;
      const negotiate: number[] = [];
      page.on('response', (r) => {
        if (r.url().includes('/svc-monitoring/hub')) negotiate.push(r.status());
      });
      // The page's clock is Playwright's: it runs as the real one, and the test moves it on to the next poll.
      await page.clock.install();
      await page.goto(`${standalone.base}/tasks?pageSize=50`);
      await page.waitForSelector('[data-testid="task-table"]');
      await page.waitForSelector('[data-testid="connection-indicator"][data-state="unavailable"]', { timeout: 15_000 });
      expect(negotiate).toContain(404);
      expect(await page.textContent('[data-testid="connection-indicator"]')).toMatch(/Polling every 5 s/);
      const navigations: string[] = [];
      page.on('framenavigated', (f) => navigations.push(f.url()));
      // The demo (another process) writes into the shared database; polling alone must show it.
      const id = await demoDispatch(demo.port, 'fast');
      await page.clock.fastForward(5_000); // the next poll, now rather than up to 5 s later
      await page.waitForSelector(`[data-testid="task-table"] tr[data-task-id="${id}"]`, { timeout: 12_000 });
      expect(navigations).toEqual([]);
    } finally {
      await b.close();
    }
  });
});
