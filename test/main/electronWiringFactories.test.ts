import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ORIGIN, resolveAppAsset } from '../../src/main/window/appProtocol.js';
import { buildContentSecurityPolicy } from '../../src/main/window/contentSecurityPolicy.js';
import { appOrigins, decideNavigation, decideWindowOpen, environmentOrigins } from '../../src/main/window/navigationPolicy.js';
import { buildWindowOptions } from '../../src/main/window/windowOptions.js';
import { DEFAULT_WINDOW_STATE, fitToDisplays, loadWindowState, saveWindowState } from '../../src/main/window/windowState.js';
import { buildTrayMenuTemplate, trayTooltip } from '../../src/main/tray/trayMenuTemplate.js';
import type { EnvironmentStatusView } from '../../src/shared/environmentStatus.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

function directives(csp: string): Map<string, string[]> {
  return new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k!, v]));
}

describe('BrowserWindow options', () => {
  it('isolate and sandbox the renderer with no Node integration', () => {
    const o = buildWindowOptions({ preloadPath: '/app/out/preload/index.cjs', state: { ...DEFAULT_WINDOW_STATE, x: 10, y: 20 } });
    expect(o.webPreferences).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    expect(o.webPreferences?.preload?.endsWith('.cjs')).toBe(true);
    expect([o.x, o.y, o.width, o.height, o.show]).toEqual([10, 20, 1280, 800, false]);
  });
});

describe('Content-Security-Policy', () => {
  it('production: nothing by default, scripts and styles only from the app, no inline, no eval, no network', () => {
    const d = directives(buildContentSecurityPolicy());
    expect(d.get('default-src')).toEqual(["'none'"]);
    expect(d.get('script-src')).toEqual(["'self'"]);
    expect(d.get('style-src')).toEqual(["'self'"]);
    expect(d.get('connect-src')).toEqual(["'self'"]);
    expect(d.get('object-src')).toEqual(["'none'"]);
    expect(d.get('frame-ancestors')).toEqual(["'none'"]);
    expect(d.get('base-uri')).toEqual(["'none'"]);
    expect(d.get('form-action')).toEqual(["'none'"]);
    // Inline style attributes only (chart tooltips); never inline style elements or scripts.
    expect(d.get('style-src-attr')).toEqual(["'unsafe-inline'"]);
    const all = buildContentSecurityPolicy().replace("style-src-attr 'unsafe-inline'", '');
    expect(all).not.toMatch(/unsafe-eval|unsafe-inline|\*|http:|https:/);
  });
  it('development adds the dev server origin and its HMR socket only', () => {
    const d = directives(buildContentSecurityPolicy({ devServerUrl: 'http://localhost:5173/' }));
    expect(d.get('script-src')).toEqual(["'self'", 'http://localhost:5173']);
    expect(d.get('connect-src')).toEqual(["'self'", 'http://localhost:5173', 'ws://localhost:5173']);
    expect(d.get('script-src')).not.toContain("'unsafe-eval'");
  });
});

describe('navigation and window.open', () => {
  const origins = appOrigins();
  it('allows in-app navigation only', () => {
    expect(decideNavigation(`${APP_ORIGIN}/tasks?page=2`, origins)).toEqual({ action: 'allow' });
    for (const url of ['https://evil.example.com/', 'file:///etc/passwd', 'app://other/', 'javascript:alert(1)', 'not a url', 'http://127.0.0.1:5080/svc-monitoring']) {
      expect(decideNavigation(url, origins), url).toEqual({ action: 'deny' });
    }
    expect(decideNavigation('http://localhost:5173/overview', appOrigins('http://localhost:5173'))).toEqual({ action: 'allow' });
  });
  it('never opens a window: the environments\' hosts and the product site go to the system browser, nothing else', () => {
    const external = environmentOrigins([{ baseUrl: 'http://127.0.0.1:5080' }, { baseUrl: 'https://prod.example.com/base' }, { baseUrl: 'https://prod.example.com' }]);
    expect(external).toEqual(['http://127.0.0.1:5080', 'https://prod.example.com']);
    expect(decideWindowOpen('http://127.0.0.1:5080/svc-monitoring', external)).toEqual({ action: 'open-external', url: 'http://127.0.0.1:5080/svc-monitoring' });
    expect(decideWindowOpen('https://prod.example.com/base/svc-monitoring', external)).toEqual({ action: 'open-external', url: 'https://prod.example.com/base/svc-monitoring' });
    expect(decideWindowOpen('https://svc-monitor.dev/docs', [])).toEqual({ action: 'open-external', url: 'https://svc-monitor.dev/docs' });
    // Another host, another port of an environment's host, or the same host over another scheme: refused.
    for (const url of ['https://docs.example.com/x', 'http://127.0.0.1:5081/', 'http://prod.example.com/', 'https://evil.example.com/?next=https://prod.example.com']) {
      expect(decideWindowOpen(url, external), url).toEqual({ action: 'deny' });
    }
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://share/x', 'svc-monitor://Prod/tasks/x', 'https://u:p@prod.example.com/', '']) {
      expect(decideWindowOpen(url, external), url).toEqual({ action: 'deny' });
    }
  });
});

describe('app:// asset resolution', () => {
  const root = resolve('/srv/app/out/renderer');
  it('serves files under the renderer folder and index.html for SPA routes', () => {
    expect(resolveAppAsset(root, 'app://console/assets/index-abc.js')).toEqual({ kind: 'file', path: join(root, 'assets/index-abc.js'), mimeType: 'text/javascript; charset=utf-8' });
    expect(resolveAppAsset(root, 'app://console/tasks/123')).toMatchObject({ kind: 'file', path: join(root, 'index.html'), mimeType: 'text/html; charset=utf-8' });
    expect(resolveAppAsset(root, 'app://console/')).toMatchObject({ path: join(root, 'index.html') });
  });
  it('refuses traversal, other hosts and schemes', () => {
    expect(resolveAppAsset(root, 'app://console/..%2f..%2f..%2fetc%2fpasswd.txt')).toEqual({ kind: 'refused', status: 404 });
    // Dot segments are normalised by URL parsing and stay inside the folder.
    expect(resolveAppAsset(root, 'app://console/%2e%2e/%2e%2e/secret.json')).toMatchObject({ kind: 'file', path: join(root, 'secret.json') });
    expect(resolveAppAsset(root, 'app://other/index.html')).toEqual({ kind: 'refused', status: 404 });
    expect(resolveAppAsset(root, 'file:///etc/passwd')).toEqual({ kind: 'refused', status: 404 });
    expect(resolveAppAsset(root, 'app://console/%E0%A4%A.js')).toEqual({ kind: 'refused', status: 400 });
  });
});

describe('window state', () => {
  it('keeps a position on a visible display, drops one that is off-screen, clamps the size', () => {
    const areas = [{ x: 0, y: 0, width: 1920, height: 1040 }];
    expect(fitToDisplays({ x: 100, y: 100, width: 1200, height: 800, maximized: false }, areas)).toEqual({ x: 100, y: 100, width: 1200, height: 800, maximized: false });
    expect(fitToDisplays({ x: 3000, y: 100, width: 1200, height: 800, maximized: true }, areas)).toEqual({ width: 1200, height: 800, maximized: true });
    expect(fitToDisplays({ x: 0, y: 0, width: 4000, height: 3000, maximized: false }, areas)).toMatchObject({ width: 1920, height: 1040 });
  });
  it('is remembered in user-data and ignores a corrupt file', async () => {
    const { dir, cleanup } = await createTempDir();
    expect(await loadWindowState(dir)).toEqual(DEFAULT_WINDOW_STATE);
    await saveWindowState(dir, { x: 5, y: 6, width: 1000, height: 700, maximized: true });
    expect(await loadWindowState(dir)).toEqual({ x: 5, y: 6, width: 1000, height: 700, maximized: true });
    await saveWindowState(dir, { width: 5, height: 5, maximized: false });
    expect(await loadWindowState(dir)).toEqual(DEFAULT_WINDOW_STATE);
    await cleanup();
  });
});

describe('tray menu', () => {
  const env = (name: string, live: EnvironmentStatusView['live'], isProduction = false) =>
    ({ id: name.toLowerCase(), name, live, isProduction, baseUrl: 'http://h', colour: '#000000' }) as EnvironmentStatusView;
  it('lists show, environments with status, the inbox with the unread count, quit', () => {
    const items = buildTrayMenuTemplate([env('Production', 'connected', true), env('Staging', 'relogin-required')], 3);
    expect(items.map((i) => ('label' in i ? i.label : '—'))).toEqual([
      'Show Svc Monitor',
      '—',
      '● Production (production) — connected',
      '⚠ Staging — log in again',
      '—',
      'Failure inbox (3 unread)',
      '—',
      'Quit',
    ]);
    expect(trayTooltip(0)).toBe('Svc Monitor');
    expect(trayTooltip(1)).toBe('Svc Monitor — 1 unread failure');
  });
});
