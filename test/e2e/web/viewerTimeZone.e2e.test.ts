import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardOverview } from '../../../server/src/contracts/task.js';
import { openDatabase } from '../../../server/src/storage/sqlite/connection/openDatabase.js';
import { startOfLocalDay } from '../../../server/src/storage/common/zonedCalendar.js';
import { buildWebDashboard } from '../../fixtures/buildOnce.js';
import { startCli, type CliProcess } from '../../fixtures/demoProcess.js';
import { insertTask } from '../../fixtures/server/servedMonitoring.js';
import { screenshotDir, settleForDocs } from '../screenshotDir.js';
import { openBrowser, type BrowserSession } from './browser.js';

const ZONE = 'America/Los_Angeles';
const HOUR = 3_600_000;

/**
 * A support engineer in Los Angeles looks at a database with tasks from yesterday (their
 * yesterday) and today: "Today" must be their day, and distribution, chart and KPIs must agree.
 */
describe('the dashboard in the viewer time zone (Chromium in America/Los_Angeles)', () => {
  let dir: string;
  let server: CliProcess;
  let browser: BrowserSession;
  const created: number[] = [];
  let laMidnight = 0;

  beforeAll(async () => {
    buildWebDashboard();
    dir = mkdtempSync(join(tmpdir(), 'svc-e2e-tz-'));
    const dbFile = join(dir, 'tz.db');
    const db = openDatabase({ file: dbFile });
    const now = Date.now();
    laMidnight = startOfLocalDay(ZONE, now);
    const span = now - laMidnight;
    // Today in Los Angeles: three tasks (one failed); yesterday in Los Angeles: four.
    const today = [1, 2, 3].map((k) => laMidnight + Math.floor((span * k) / 4));
    const yesterday = [1, 2, 3, 5].map((h) => laMidnight - h * HOUR);
    for (const [i, at] of today.entries()) {
      insertTask(db, { status: i === 2 ? 'Failed' : 'Completed', created_at: at, exception: i === 2 ? 'TimeoutError: ran over 800 ms\n at Demo' : null });
    }
    for (const at of yesterday) insertTask(db, { status: 'Completed', created_at: at });
    created.push(...today, ...yesterday);
    db.close();
    server = await startCli('serve', { dbFile, env: { SVC_MONITOR_ENABLE_AUTHENTICATION: 'false' } });
    browser = await openBrowser('light', { timezoneId: ZONE, locale: 'en-US' });
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('Today is the viewer\'s day, and distribution, chart and KPIs count the same tasks', async () => {
    const { page } = browser;
    const answer = page.waitForResponse((r) => r.url().includes('/api/dashboard/overview'));
    await page.goto(`${server.base}/`);
    const response = await answer;
    expect(new URL(response.url()).searchParams.get('timeZone')).toBe(ZONE);
    const body = (await response.json()) as DashboardOverview;
    await page.waitForSelector('[data-testid="kpi-today"]');

    const text = async (id: string) => (await page.textContent(`[data-testid="${id}"]`))?.trim();
    expect(await text('kpi-today')).toBe('3');
    expect(await text('distribution-total')).toBe('3');
    expect(await text('chart-total')).toBe('3');
    expect(await text('kpi-failed')).toBe('1');
    expect(body.tasksOverTime[0]!.timestamp).toBe(new Date(laMidnight).toISOString());
    expect(body.tasksOverTime.reduce((a, p) => a + p.total, 0)).toBe(3);
    const note = await text('overview-window');
    expect(note).toContain('America/Los_Angeles (local)');
    expect(note).toContain('12:00:00 AM');
    const shots = screenshotDir('web');
    mkdirSync(shots, { recursive: true });
    await settleForDocs(page, 450);
    await page.screenshot({ path: join(shots, 'overview-los-angeles-light.png') });

    // Chosen zone UTC: the UTC day (counted from the same seeded instants), named on the page.
    const utcMidnight = Math.floor(Date.now() / 86_400_000) * 86_400_000;
    const expectedUtc = created.filter((t) => t >= utcMidnight).length;
    const utcAnswer = page.waitForResponse((r) => r.url().includes('/api/dashboard/overview') && r.url().includes('timeZone=UTC'));
    await page.selectOption('[data-testid="tz-select"]', 'UTC');
    await utcAnswer;
    await expect.poll(() => text('overview-window')).toContain('UTC');
    await expect.poll(() => text('kpi-today')).toBe(String(expectedUtc));
    expect(await text('chart-total')).toBe(String(expectedUtc));
    expect(await text('distribution-total')).toBe(String(expectedUtc));

    // Remembered: a reload keeps UTC.
    await page.reload();
    await page.waitForSelector('[data-testid="overview-window"]');
    expect(await page.inputValue('[data-testid="tz-select"]')).toBe('UTC');
    await page.selectOption('[data-testid="tz-select"]', 'local');
  });

  it('the failed list shows the error column; times are in Los Angeles with UTC on hover', async () => {
    const { page } = browser;
    await page.goto(`${server.base}/tasks?statuses=Failed`);
    await page.waitForSelector('[data-testid="error-summary"]');
    expect((await page.textContent('[data-testid="error-summary"]'))?.trim()).toBe('TimeoutError: ran over 800 ms');
    const title = await page.getAttribute('[data-testid="task-table"] tbody time', 'title');
    expect(title).toContain(ZONE);
    expect(title).toContain('UTC');
  });
});
