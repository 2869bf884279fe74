import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSigningInAs } from '../../fixtures/server/ssoBrowser.js';
import { startSsoHost, type SsoHost } from '../../fixtures/server/ssoHost.js';
import { seriousAccessibilityViolations } from '../accessibility.js';
import { buildDesktop, openDesktop, serveRenderer, type DesktopHarness, type RendererServer } from './desktopHarness.js';

/**
 * The desktop's login panel against a host with single sign-on: the button, the wait for the
 * system browser (played by an HTTP client through the real provider), then the dashboard.
 */
describe('desktop single sign-on in Chromium: "Sign in with …" on the login panel', () => {
  let host: SsoHost;
  let renderer: RendererServer;
  let h: DesktopHarness;
  const opened: string[] = [];

  beforeAll(async () => {
    host = await startSsoHost();
    renderer = await serveRenderer(await buildDesktop());
    h = await openDesktop(renderer.url, { openExternal: browserSigningInAs(host, 'alice', opened) });
    await h.services.addEnvironment({ name: 'Corp', baseUrl: host.baseUrl, colour: '#2563eb', isProduction: false });
    await h.page.goto(renderer.url);
  }, 300_000);

  afterAll(async () => {
    await h?.close();
    await renderer?.close();
    await host?.close();
  });

  it('offers the provider by its name, with no serious or critical axe-core violations', async () => {
    const p = h.page;
    const button = p.getByRole('button', { name: 'Sign in with Test IdP' });
    await button.waitFor();
    expect(await seriousAccessibilityViolations(p, '[data-testid="login-panel"]')).toEqual([]);
  });

  it('signs in through the system browser and shows the dashboard as the signed-in person', async () => {
    const p = h.page;
    await p.getByRole('button', { name: 'Sign in with Test IdP' }).focus();
    await p.keyboard.press('Enter');
    await p.getByTestId('dashboard-host').waitFor({ timeout: 20_000 });
    await expect.poll(() => p.getByTestId('current-user').textContent()).toContain('alice@example.com');
    expect(new URL(opened[0]!).pathname).toBe('/svc-monitoring/auth/oidc/login');
  });
});
