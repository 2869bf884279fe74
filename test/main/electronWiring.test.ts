import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { waitFor } from '../fixtures/waitFor.js';
import { createRecordingElectron } from '../fixtures/main/recordingElectron.js';

const dir = await mkdtemp(join(tmpdir(), 'svc-wiring-'));
const rec = createRecordingElectron(join(dir, 'user-data'), process.cwd());
/** URLs the app requested through Electron's network stack (net.request). */
const netFetched: string[] = [];
const netRequest = rec.electron.net.request;
rec.electron.net.request = (options) => (netFetched.push(options.url), netRequest(options));
vi.mock('electron', () => rec.electron);

describe('Electron wiring (src/main/index.ts) against a recording electron module', () => {
  beforeAll(async () => {
    await import('../../src/main/index.js');
    // The window comes first; the services (and the tray) once the keychain answered.
    await rec.startApp({ tray: true });
  });
  afterAll(async () => {
    rec.emitBeforeQuit();
    await new Promise((r) => setTimeout(r, 50));
    await rm(dir, { recursive: true, force: true });
  });

  it('registers the app scheme, the deep-link protocol, and loads the renderer from app://console with a hardened window', () => {
    expect(rec.calls).toContain('privileged:app');
    expect(rec.calls).toContain('setAsDefaultProtocolClient:svc-monitor');
    const win = rec.windows[0]!;
    expect(win.loadedUrl).toBe('app://console/');
    expect(win.options['webPreferences']).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    expect(String((win.options['webPreferences'] as { preload: string }).preload)).toMatch(/preload[\\/]index\.cjs$/);
    // Only the app's own page may write to the clipboard (Copy buttons); nothing else is granted.
    expect(rec.askPermission('clipboard-sanitized-write', 'app://console/tasks/1')).toEqual({ request: true, check: true });
    expect(rec.askPermission('clipboard-sanitized-write', 'https://evil.example.com/')).toEqual({ request: false, check: false });
    for (const p of ['geolocation', 'media', 'notifications', 'clipboard-read', 'openExternal']) expect(rec.askPermission(p, 'app://console/'), p).toEqual({ request: false, check: false });
    expect(rec.trays).toHaveLength(1);
  });

  it('denies navigation away from the app and sends window.open to the system browser only for the product site and the environments\' hosts', () => {
    const wc = rec.windows[0]!.webContents;
    let prevented = 0;
    wc.emit('will-navigate', { preventDefault: () => prevented++ }, 'https://evil.example.com/');
    wc.emit('will-navigate', { preventDefault: () => prevented++ }, 'app://console/tasks');
    expect(prevented).toBe(1);
    expect(wc.windowOpenHandler!({ url: 'https://svc-monitor.dev/docs' })).toEqual({ action: 'deny' });
    expect(wc.windowOpenHandler!({ url: 'https://docs.example.com/' })).toEqual({ action: 'deny' });
    expect(wc.windowOpenHandler!({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(rec.opened).toEqual(['https://svc-monitor.dev/docs']);
  });

  it('gives every other web contents the floor: no webview, no window, no navigation out of the app', () => {
    const other = rec.createWebContents();
    rec.appEmitter.emit('web-contents-created', {}, other);
    let prevented = 0;
    other.emit('will-attach-webview', { preventDefault: () => prevented++ });
    other.emit('will-navigate', { preventDefault: () => prevented++ }, 'https://evil.example.com/');
    other.emit('will-redirect', { preventDefault: () => prevented++ }, 'file:///etc/passwd');
    other.emit('will-navigate', { preventDefault: () => prevented++ }, 'app://console/overview');
    expect(prevented).toBe(3);
    expect(other.windowOpenHandler!({ url: 'https://svc-monitor.dev/' })).toEqual({ action: 'deny' });
    expect(rec.opened).not.toContain('https://svc-monitor.dev/');
  });

  it('serves the renderer through the app protocol with the CSP header and refuses traversal', async () => {
    const handler = rec.protocolHandlers.get('app')!;
    // Loaded from source here, the renderer folder is src/renderer: its index.html answers
    // for an SPA route, with the policy header.
    const page = await handler(new Request('app://console/tasks/123'));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'self';/);
    expect(await page.text()).toContain('<div id="app">');
    const refused = await handler(new Request('app://other/index.html'));
    expect(refused.status).toBe(404);
    const missing = await handler(new Request('app://console/assets/nope.js'));
    expect(missing.status).toBe(404);
  });

  it('handles every bridge channel, validates arguments and refuses calls from other frames', async () => {
    expect([...rec.ipcHandlers.keys()].every((c) => c.startsWith('svc-monitor:'))).toBe(true);
    expect(rec.ipcHandlers.size).toBe(32);
    const appFrame = { senderFrame: { url: 'app://console/', parent: null } };
    const add = rec.ipcHandlers.get('svc-monitor:environments.add')!;
    const ok = (await add(appFrame, { name: 'Local', baseUrl: 'http://127.0.0.1:9', colour: '#123456', isProduction: false })) as { ok: boolean };
    expect(ok.ok).toBe(true);
    // The environment's host is asked through Electron's network stack, not Node's.
    await waitFor(() => netFetched.includes('http://127.0.0.1:9/svc-monitoring/api/config'), 10_000, 'the /config request', 25);
    const bad = (await add(appFrame, { name: 'x', baseUrl: 'ftp://x', colour: '#123456', isProduction: false })) as { ok: boolean; error: { code: string } };
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid-arguments' } });
    const evil = (await add({ senderFrame: { url: 'https://evil.example.com/', parent: null } }, { name: 'y', baseUrl: 'http://h', colour: '#123456', isProduction: false })) as { ok: boolean; error: { code: string } };
    expect(evil).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    const sub = (await add({ senderFrame: { url: 'app://console/', parent: {} } }, { name: 'z', baseUrl: 'http://h', colour: '#123456', isProduction: false })) as { ok: boolean };
    expect(sub.ok).toBe(false);
    const vault = (await rec.ipcHandlers.get('svc-monitor:vault.status')!(appFrame)) as { ok: boolean; value: { storage: string; reason: string } };
    if (process.env['SVC_MONITOR_REQUIRE_KEYRING'] === '1') {
      // Under scripts/with-keyring.sh keytar reaches gnome-keyring.
      expect(vault.value.storage).toBe('keychain');
    } else {
      // No Secret Service and safeStorage on basic_text: memory only, with the reason.
      expect(vault.value.storage).toBe('memory');
      expect(vault.value.reason).toMatch(/basic_text/);
    }
  });

  it('opens an environment\'s own host through the bridge, and no other host', async () => {
    const appFrame = { senderFrame: { url: 'app://console/', parent: null } };
    const openExternal = rec.ipcHandlers.get('svc-monitor:shell.openExternal')!;
    // The environment added above lives at http://127.0.0.1:9.
    await openExternal(appFrame, 'http://127.0.0.1:9/svc-monitoring');
    await openExternal(appFrame, 'https://evil.example.com/phish');
    await openExternal(appFrame, 'http://127.0.0.1:10/svc-monitoring');
    expect(rec.opened).toContain('http://127.0.0.1:9/svc-monitoring');
    expect(rec.opened).not.toContain('https://evil.example.com/phish');
    expect(rec.opened).not.toContain('http://127.0.0.1:10/svc-monitoring');
  });

  it('pushes main events to the window on one channel', async () => {
    const wc = rec.windows[0]!.webContents;
    await waitFor(
      () =>
      wc.sent.some(([channel, e]) => channel === 'svc-monitor:event' && (e as { type: string }).type === 'environments'),
      10_000,
      'an environments event on svc-monitor:event',
      25,
    );
    // Every event main pushes goes on that one channel.
    expect(new Set(wc.sent.map(([channel]) => channel))).toEqual(new Set(['svc-monitor:event']));
  });
});
