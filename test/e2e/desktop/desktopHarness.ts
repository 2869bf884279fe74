import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ConsoleServices, type ConsoleServicesOptions } from '../../../src/main/ConsoleServices.js';
import { createIpcDispatcher } from '../../../src/main/ipc/ipcDispatcher.js';
import type { FailureNotification } from '../../../src/main/notifications/FailureNotifier.js';
import { APP_ORIGIN, resolveAppAsset } from '../../../src/main/window/appProtocol.js';
import { buildContentSecurityPolicy } from '../../../src/main/window/contentSecurityPolicy.js';

const run = promisify(execFile);

/** Builds the desktop bundles (`electron-vite build`) into a fresh folder; returns it. */
export async function buildDesktop(): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'svc-desktop-out-'));
  await run(process.execPath, ['node_modules/electron-vite/bin/electron-vite.js', 'build', '--outDir', outDir, '--logLevel', 'error'], {
    env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
    timeout: 240_000,
  });
  return outDir;
}

/**
 * Serves out/renderer the way the app:// protocol handler does (same resolution, same CSP
 * header), on a loopback port, since Chromium here cannot load Electron's custom scheme.
 */
export async function serveRenderer(outDir: string): Promise<{ url: string; close: () => Promise<void> }> {
  const root = resolve(outDir, 'renderer');
  const csp = buildContentSecurityPolicy();
  const server: Server = createServer((req, res) => {
    const r = resolveAppAsset(root, `${APP_ORIGIN}${req.url ?? '/'}`);
    if (r.kind === 'refused') {
      res.writeHead(r.status).end();
      return;
    }
    readFile(r.path).then(
      (body) => res.writeHead(200, { 'Content-Type': r.mimeType, 'Content-Security-Policy': csp }).end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
        void rm(outDir, { recursive: true, force: true });
      }),
  };
}

export interface DesktopHarness {
  services: ConsoleServices;
  page: Page;
  notifications: FailureNotification[];
  badge: number[];
  /** Console errors and CSP violations seen in the page. */
  pageErrors: string[];
  close(): Promise<void>;
}

/**
 * The renderer in desktop mode in real Chromium, with the preload bridge replaced by a
 * Playwright binding that calls the real main-process services (ConsoleServices and the IPC
 * dispatcher with its validation), and main's RendererEvents pushed into the page.
 */
export async function openDesktop(rendererUrl: string, options: Partial<ConsoleServicesOptions> & { colorScheme?: 'light' | 'dark' } = {}): Promise<DesktopHarness> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'svc-desktop-user-data-'));
  const browserDir = await mkdtemp(join(tmpdir(), 'svc-desktop-chromium-'));
  const notifications: FailureNotification[] = [];
  const badge: number[] = [];
  const services = await ConsoleServices.create({
    userDataDir,
    notifications: { show: (n) => notifications.push(n) },
    badge: { setUnreadCount: (c) => badge.push(c) },
    ...options,
  });
  const dispatch = createIpcDispatcher(services, { openExternal: async () => undefined });
  const context: BrowserContext = await chromium.launchPersistentContext(browserDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
    viewport: { width: 1280, height: 760 },
    colorScheme: options.colorScheme ?? 'light',
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.exposeBinding('__svcInvoke', (_source, channel: string, args: unknown[]) => dispatch(channel, args));
  await page.addInitScript(() => {
    const listeners = new Set<(e: unknown) => void>();
    const w = window as unknown as Record<string, unknown>;
    w['__svcEmit'] = (e: unknown) => listeners.forEach((l) => l(e));
    w['svcMonitor'] = Object.freeze({
      invoke: (channel: string, ...args: unknown[]) => (w['__svcInvoke'] as (c: string, a: unknown[]) => Promise<unknown>)(channel, args),
      onEvent: (l: (e: unknown) => void) => {
        listeners.add(l);
        return () => listeners.delete(l);
      },
      platform: 'linux',
    });
  });
  const off = services.onEvent((event) => {
    void page.evaluate((e) => (window as unknown as { __svcEmit?: (x: unknown) => void }).__svcEmit?.(e), event).catch(() => undefined);
  });
  return {
    services,
    page,
    notifications,
    badge,
    pageErrors,
    async close() {
      off();
      await context.close().catch(() => undefined);
      await services.dispose();
      await rm(userDataDir, { recursive: true, force: true });
      await rm(browserDir, { recursive: true, force: true });
    },
  };
}
