import type { BrowserContext, Page } from 'playwright-core';
import { newBrowserContext } from '../../fixtures/sharedChromium.js';

export interface BrowserSession {
  context: BrowserContext;
  page: Page;
  close: () => Promise<void>;
}

/** A fresh browser context (empty storage) in the run's Chromium (Debian's), 1280×720. */
export async function openBrowser(colorScheme: 'light' | 'dark' = 'light', options: { timezoneId?: string; locale?: string } = {}): Promise<BrowserSession> {
  const context = await newBrowserContext({ viewport: { width: 1280, height: 720 }, colorScheme, ...options });
  const page = await context.newPage();
  return {
    context,
    page,
    close: () => context.close(),
  };
}

export async function signIn(page: Page, base: string, username = 'admin', password = 'admin'): Promise<void> {
  await page.goto(`${base}/login`);
  await page.fill('input[name="username"]', username);
  await page.fill('input[name="password"]', password);
  await page.click('button[type="submit"]');
  await page.waitForSelector('[data-testid="kpi-today"]');
}
