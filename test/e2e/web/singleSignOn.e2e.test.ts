import { createServer } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWebDashboard } from '../../fixtures/buildOnce.js';
import { startSsoHost, type SsoHost } from '../../fixtures/server/ssoHost.js';
import { openBrowser, signIn } from './browser.js';

/** A sign-in goes through two servers' pages and a provider's two interactions: on a busy machine that takes more than the default 30 s. */
const FLOW_TIMEOUT_MS = 120_000;

/** Clicks "Sign in with Test IdP" on the dashboard's login page and signs in at the provider as `login`. */
async function signInWithProvider(page: Page, host: SsoHost, login: string): Promise<void> {
  await page.goto(`${host.baseUrl}/svc-monitoring/login`);
  await page.click('[data-testid="sso-button"]');
  await page.waitForURL((url) => url.origin === host.provider.issuer);
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', 'any password');
  await page.click('button[type="submit"]');
  // The provider's consent interaction.
  await page.waitForSelector('button:has-text("Continue")');
  await page.click('button:has-text("Continue")');
}

describe('single sign-on in the web dashboard, through a real OpenID provider', () => {
  let host: SsoHost;
  beforeAll(async () => {
    buildWebDashboard();
    host = await startSsoHost();
  }, 240_000);
  afterAll(() => host?.close());

  it('signs in with the provider: an operator by group claim, with the operate role; the token never stays in the address bar', async () => {
    const b = await openBrowser();
    try {
      const { page } = b;
      await page.goto(`${host.baseUrl}/svc-monitoring/login`);
      expect((await page.textContent('[data-testid="sso-button"]'))?.trim()).toBe('Sign in with Test IdP');
      expect(await page.isVisible('input[name="password"]')).toBe(true);
      await signInWithProvider(page, host, 'alice');
      await page.waitForSelector('[data-testid="kpi-today"]');
      const user = await page.textContent('[data-testid="current-user"]');
      expect(user).toContain('alice@example.com');
      expect(user).toContain('operate');
      expect(page.url()).not.toContain('session=');
      await page.waitForSelector('[data-testid="connection-indicator"][data-state="connected"]', { timeout: 15_000 });
    } finally {
      await b.close();
    }
  }, FLOW_TIMEOUT_MS);

  it('a user outside the allowed e-mail domain is refused with a clear message on the login page', async () => {
    const b = await openBrowser();
    try {
      const { page } = b;
      await signInWithProvider(page, host, 'mallory');
      await page.waitForSelector('[data-testid="login-error"]');
      expect(new URL(page.url()).pathname).toBe('/svc-monitoring/login');
      expect(await page.textContent('[data-testid="login-error"]')).toContain('Your account is not allowed to sign in to this monitoring');
      expect(await page.$('[data-testid="current-user"]')).toBeNull();
    } finally {
      await b.close();
    }
  }, FLOW_TIMEOUT_MS);
});

describe('single sign-on sessions that end, and a provider that is down', () => {
  it('a session that ends with its short ID token sends the user back to sign in', async () => {
    // Long enough to reach the dashboard on a busy machine, short enough to wait for its end.
    const host = await startSsoHost({ idTokenTtl: 15 });
    const b = await openBrowser();
    try {
      const { page } = b;
      await signInWithProvider(page, host, 'bob');
      await page.waitForSelector('[data-testid="kpi-today"]');
      // The hub closes the connection at the session's end and the API answers 401: back to login.
      await page.waitForSelector('[data-testid="login-notice"]', { timeout: 60_000 });
      expect(await page.textContent('[data-testid="login-notice"]')).toContain('Your session has expired');
      expect(await page.isVisible('[data-testid="sso-button"]')).toBe(true);
    } finally {
      await b.close();
      await host.close();
    }
  }, FLOW_TIMEOUT_MS);

  it('an unreachable issuer is shown as such, and the password login still works', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const host = await startSsoHost({ issuer: `http://127.0.0.1:${port}` });
    const b = await openBrowser();
    try {
      const { page } = b;
      await page.goto(`${host.baseUrl}/svc-monitoring/login`);
      await page.click('[data-testid="sso-button"]');
      await page.waitForSelector('[data-testid="login-error"]');
      expect(await page.textContent('[data-testid="login-error"]')).toContain('The identity provider cannot be reached right now');
      await signIn(page, `${host.baseUrl}/svc-monitoring`);
      expect(await page.textContent('[data-testid="current-user"]')).toContain('admin');
    } finally {
      await b.close();
      await host.close();
    }
  }, FLOW_TIMEOUT_MS);
});
