import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWebDashboard } from '../../fixtures/buildOnce.js';
import { finishRun, insertTask, login, serve, createTempDatabase, type Served, type TempDb } from '../../fixtures/server/servedMonitoring.js';
import { openBrowser, type BrowserSession } from './browser.js';
import { injectSession } from './session.js';

/**
 * The web dashboard in Chromium over a real SQLite file: the search box finds a task by a value
 * inside its request arguments, the toggle restricts the search and the URL keeps it; the
 * "What is failing and why" page groups failures and links to their tasks; the Queues page
 * shows the latency columns.
 */
describe('web dashboard: argument search, failure groups, queue latency (Chromium)', () => {
  let t: TempDb;
  let s: Served;
  let browser: BrowserSession;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    buildWebDashboard();
    t = createTempDatabase();
    const now = Date.now();
    ids.acme = insertTask(t.db, { type: 'Shop.Orders.Ship', request: '{"customer":"ACME-42","items":3}', status: 'InProgress', created_at: now - 5000 });
    finishRun(t.db, ids.acme, 'Failed', now - 1000, 0, 'Error: carrier 503 for parcel 77812');
    ids.globex = insertTask(t.db, { type: 'Shop.Orders.Ship', request: '{"customer":"Globex","items":1}', status: 'InProgress', created_at: now - 4000 });
    finishRun(t.db, ids.globex, 'Failed', now - 900, 0, 'Error: carrier 502 for parcel 1290');
    for (let i = 0; i < 30; i++) insertTask(t.db, { type: 'Shop.Mail.Send', request: `{"to":"user${i}@example.com"}`, created_at: now - 10_000 - i, status: 'Queued', scheduled_at: now - 60_000 });
    s = await serve({ storage: { db: t.db } }, { loginRateLimit: false });
    const token = await login(s.api);
    browser = await openBrowser('light');
    await injectSession(browser.context, { username: 'admin', token });
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
    t?.cleanup();
  });

  const rows = (page: BrowserSession['page']) => page.$$eval('[data-testid="task-table"] tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-task-id')));

  it('typing an argument value in the search box finds the task; the toggle restricts it; the URL keeps both', async () => {
    const { page } = browser;
    await page.goto(`${s.baseUrl}/svc-monitoring/tasks`);
    await page.waitForSelector('[data-testid="task-table"] tbody tr');
    await page.fill('input[name="searchTerm"]', 'ACME-42');
    await page.press('input[name="searchTerm"]', 'Enter');
    await expect.poll(() => rows(page), { timeout: 15_000 }).toEqual([ids.acme]);
    expect(new URL(page.url()).searchParams.get('searchTerm')).toBe('ACME-42');
    expect(await page.textContent('[data-testid="task-total"]')).toContain('1 matching');

    // Names only: no task type contains ACME-42.
    await page.click('label.chip:has(input[name="searchIn"][value="names"])');
    await expect.poll(() => page.textContent('[data-testid="task-total"]'), { timeout: 15_000 }).toContain('0 matching');
    expect(new URL(page.url()).searchParams.get('searchIn')).toBe('names');

    // Arguments only, with a key word: both orders have "customer".
    await page.click('label.chip:has(input[name="searchIn"][value="arguments"])');
    await page.fill('input[name="searchTerm"]', 'customer');
    await page.press('input[name="searchTerm"]', 'Enter');
    await expect.poll(async () => (await rows(page)).sort(), { timeout: 15_000 }).toEqual([ids.acme, ids.globex].sort());

    // A reload keeps the search (the URL holds it).
    await page.goto(`${s.baseUrl}/svc-monitoring/tasks?searchTerm=Globex&searchIn=arguments`);
    await expect.poll(() => rows(page), { timeout: 15_000 }).toEqual([ids.globex]);
    expect(await page.inputValue('input[name="searchTerm"]')).toBe('Globex');
    expect(await page.isChecked('input[name="searchIn"][value="arguments"]')).toBe(true);
  });

  it('"What is failing and why" groups the two carrier failures and links to their tasks', async () => {
    const { page } = browser;
    await page.goto(`${s.baseUrl}/svc-monitoring/failures`);
    await page.click('[role="radiogroup"][aria-label="Failure range"] >> text=Today');
    const group = page.locator('[data-testid="failure-group"]');
    await expect.poll(() => group.count(), { timeout: 15_000 }).toBe(1);
    expect(await group.first().textContent()).toContain('Error: carrier # for parcel #');
    expect(await group.first().locator('td.num').textContent()).toBe('2');
    await group.first().locator('th a').click();
    await expect.poll(async () => (await rows(page)).sort(), { timeout: 15_000 }).toEqual([ids.acme, ids.globex].sort());
    const url = new URL(page.url());
    // The link narrows to the group itself: its type and its exception's fingerprint.
    expect(url.searchParams.get('taskType')).toBe('Shop.Orders.Ship');
    expect(url.searchParams.get('failureFingerprint')).toBe('Error: carrier # for parcel #');
  });

  it('the Queues page shows how long the next queued task has waited and the last minute rate', async () => {
    const { page } = browser;
    await page.goto(`${s.baseUrl}/svc-monitoring/queues`);
    await page.waitForSelector('[data-testid="queue-oldest"]');
    const oldest = await page.textContent('[data-testid="queues-table"] tbody tr:has(th:has-text("default")) [data-testid="queue-oldest"]');
    expect(oldest).toMatch(/^1m \d+s$/);
    expect(await page.textContent('[data-testid="queues-table"] tbody tr:has(th:has-text("default")) [data-testid="queue-rate"]')).toBe('2/min');
  });
});
