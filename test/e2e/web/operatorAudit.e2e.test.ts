import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshotDir, settleForDocs } from '../screenshotDir.js';
import type { Engine } from '../../../server/src/index.js';
import { buildWebDashboard } from '../../fixtures/buildOnce.js';
import { openMonitoredStore, type MonitoredStore } from '../../fixtures/server/monitoredStore.js';
import { insertTask, login, postJson, serve, type Served } from '../../fixtures/server/servedMonitoring.js';
import { openBrowser, type BrowserSession } from './browser.js';

/**
 * The Audit page and the task detail's operator actions in a real Chromium, after actions taken
 * through the API: an operator's sign-in and retry, a reader refused, a bulk action with its counts.
 */
describe('web dashboard: the operator audit', () => {
  let t: MonitoredStore;
  let engine: Engine;
  let s: Served;
  let browser: BrowserSession;
  let failed: string;

  beforeAll(async () => {
    buildWebDashboard();
    t = openMonitoredStore();
    engine = t.engine({ queues: { default: { concurrency: 2 } } });
    engine.handle('Audit.E2e.Works', async () => {});
    await engine.start();
    s = await serve(await t.source(engine), {
      enableManagementEndpoints: true,
      managementUsername: 'operator',
      managementPassword: 'operator-secret',
      loginRateLimit: false,
    });
    failed = await t.seed((db) => insertTask(db, { type: 'Audit.E2e.Works', status: 'Failed' }));
    await t.seed((db) => {
      for (let i = 0; i < 2; i++) insertTask(db, { type: 'Audit.E2e.Bulk', status: 'Failed' });
    });
    engine.handle('Audit.E2e.Bulk', async () => {});
    const read = await login(s.api);
    const operate = await login(s.api, 'operator', 'operator-secret');
    expect((await postJson(`${s.api}/management/tasks/${failed}/retry`, undefined, read)).status).toBe(403);
    expect((await postJson(`${s.api}/management/tasks/${failed}/retry`, undefined, operate)).status).toBe(200);
    expect((await postJson(`${s.api}/management/bulk/retry`, { filter: { taskType: 'Audit.E2e.Bulk', statuses: ['Failed'] }, expectedCount: 2 }, operate)).status).toBe(200);
    browser = await openBrowser('light');
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await engine?.stop({ graceMs: 500 });
    await t?.destroy();
  });

  it('an operator sees the Audit page with the records of the actions, filters them, and the task detail lists who acted on the task', async () => {
    const { page } = browser;
    const base = `${s.baseUrl}/svc-monitoring`;
    await page.goto(`${base}/login`);
    await page.fill('input[name="username"]', 'operator');
    await page.fill('input[name="password"]', 'operator-secret');
    await page.click('button[type="submit"]');
    await page.waitForSelector('nav a[aria-label="Audit"], nav a:has-text("Audit")');
    await page.click('nav a:has-text("Audit")');
    await page.waitForSelector('[data-testid="audit-row"]');
    // The bulk action's row carries its filter and, once it ended, the counts it reached.
    await expect
      .poll(async () => (await page.locator('[data-testid="audit-bulk"]').allTextContents()).join('\n'), { timeout: 15_000 })
      .toMatch(/taskType=Audit\.E2e\.Bulk.*Completed: 2 of 2 changed/);
    await settleForDocs(page, 300);
    await page.screenshot({ path: join(screenshotDir('web'), 'audit-light.png') });
    const actors = await page.locator('[data-testid="audit-actor"]').allTextContents();
    expect(actors.some((a) => a.includes('admin') && a.includes('read'))).toBe(true);
    expect(actors.some((a) => a.includes('operator') && a.includes('via password'))).toBe(true);

    await page.selectOption('select[name="action"]', 'retry');
    await expect.poll(async () => page.locator('[data-testid="audit-action"]').allTextContents(), { timeout: 10_000 }).toEqual(['retry', 'retry']);
    const results = await page.locator('[data-testid="audit-result"]').allTextContents();
    expect(results.map((r) => r.replace(/\s+/g, ' ').trim())).toEqual(['ok (200)', 'refused (403)']);

    await page.goto(`${base}/tasks/${failed}`);
    await page.waitForSelector('[data-testid="operator-actions"] [data-testid="audit-row"]');
    await page.locator('[data-testid="operator-actions"]').screenshot({ path: join(screenshotDir('web'), 'task-operator-actions-light.png') });
    const section = await page.locator('[data-testid="operator-actions"]').textContent();
    expect(section).toMatch(/Operator actions\s*\(2\)/);
    expect(section).toContain('operator');
    expect(section).toContain('refused (403)');
  });

  it('a reader has no Audit page in the navigation and no operator actions on the task detail', async () => {
    const b = await openBrowser('light');
    try {
      const { page } = b;
      const base = `${s.baseUrl}/svc-monitoring`;
      await page.goto(`${base}/login`);
      await page.fill('input[name="username"]', 'admin');
      await page.fill('input[name="password"]', 'admin');
      await page.click('button[type="submit"]');
      await page.waitForSelector('[data-testid="kpi-today"]');
      expect(await page.locator('nav a:has-text("Audit")').count()).toBe(0);
      await page.goto(`${base}/tasks/${failed}`);
      await page.waitForSelector('[data-testid="execution-logs"]');
      expect(await page.locator('[data-testid="operator-actions"]').count()).toBe(0);
    } finally {
      await b.close();
    }
  });
});
