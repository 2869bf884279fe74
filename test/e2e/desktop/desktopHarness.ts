import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { ConsoleServices, type ConsoleServicesOptions } from '../../../src/main/ConsoleServices.js';
import type { EnvironmentInput } from '../../../src/shared/environment.js';
import { createIpcDispatcher } from '../../../src/main/ipc/ipcDispatcher.js';
import type { FileDialogs } from '../../../src/main/ipc/ipcChannelTable.js';
import type { FailureNotification } from '../../../src/main/notifications/FailureNotifier.js';
import { APP_ORIGIN, resolveAppAsset } from '../../../src/main/window/appProtocol.js';
import { buildContentSecurityPolicy } from '../../../src/main/window/contentSecurityPolicy.js';
import { appOrigins } from '../../../src/main/window/navigationPolicy.js';
import { decidePermission } from '../../../src/main/window/permissionPolicy.js';
import { desktopBundles } from '../../fixtures/buildOnce.js';
import { lateBound } from '../../fixtures/lateBound.js';
import { newBrowserContext } from '../../fixtures/sharedChromium.js';
import { aesSafeStorage } from '../../fixtures/main/aesSafeStorage.js';

/** The desktop bundles (`electron-vite build`, made once per test run) in a fresh folder; returns it. */
export async function buildDesktop(): Promise<string> {
  return desktopBundles();
}

/**
 * Serves out/renderer the way the app:// protocol handler does (same resolution, same CSP
 * header), on a loopback port, since Chromium here cannot load Electron's custom scheme.
 */
export interface RendererServer {
  url: string;
  close(): Promise<void>;
}

export async function serveRenderer(outDir: string): Promise<RendererServer> {
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
  /** CSP violations the page reported (`securitypolicyviolation`), as "directive: blocked". */
  cspViolations(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * The renderer in desktop mode in real Chromium, with the preload bridge replaced by a
 * Playwright binding that calls the real main-process services (ConsoleServices and the IPC
 * dispatcher with its validation), and main's RendererEvents pushed into the page. Like
 * Electron's contextBridge, the stand-in passes every argument and result through
 * structuredClone (a Vue reactive proxy fails there as in Electron). The page gets the
 * window's real CSP (header) and the permissions main's permission handler grants to the
 * app's origin (Electron's clipboard-sanitized-write is Chromium's clipboard-write).
 */
export type DesktopOptions = Partial<ConsoleServicesOptions> & {
  colorScheme?: 'light' | 'dark';
  files?: FileDialogs;
  /** What opening a URL in the system browser does (default: nothing). */
  openExternal?: (url: string) => Promise<void>;
};

export async function openDesktop(rendererUrl: string, options: DesktopOptions = {}): Promise<DesktopHarness> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'svc-desktop-user-data-'));
  const notifications: FailureNotification[] = [];
  const badge: number[] = [];
  const services = await ConsoleServices.create({
    userDataDir,
    notifications: { show: (n) => notifications.push(n) },
    badge: { setUnreadCount: (c) => badge.push(c) },
    ...options,
  });
  const dispatch = createIpcDispatcher({ services, openExternal: options.openExternal ?? (async () => undefined), ...(options.files ? { files: options.files } : {}) });
  const context: BrowserContext = await newBrowserContext({ viewport: { width: 1280, height: 760 }, colorScheme: options.colorScheme ?? 'light' });
  const rendererOrigin = new URL(rendererUrl).origin;
  // The renderer is served from a loopback origin here instead of app://console: ask main's
  // policy about the app origin and grant its answer to the origin the page really has.
  // (Chromium also lets a page write on a user gesture without the grant; Electron asks the
  // session's handler, which the wiring test drives.) clipboard-read is for the test only.
  const granted = decidePermission('clipboard-sanitized-write', 'app://console/', appOrigins(undefined)) ? ['clipboard-write'] : [];
  await context.grantPermissions([...granted, 'clipboard-read'], { origin: rendererOrigin });
  const page = await context.newPage();
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
    const violations: string[] = [];
    w['__svcCspViolations'] = violations;
    document.addEventListener('securitypolicyviolation', (e) => violations.push(`${e.violatedDirective}: ${e.blockedURI || e.sample || 'inline'}`));
    w['svcMonitor'] = Object.freeze({
      // contextBridge copies with structured clone both ways; it throws on what it cannot copy.
      invoke: (channel: string, ...args: unknown[]) =>
        (w['__svcInvoke'] as (c: string, a: unknown[]) => Promise<unknown>)(channel, structuredClone(args)).then((r) => structuredClone(r)),
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
    cspViolations: () => page.evaluate(() => [...((window as unknown as { __svcCspViolations?: string[] }).__svcCspViolations ?? [])]),
    async close() {
      off();
      await context.close().catch(() => undefined);
      await services.dispose();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Opens task `taskId` of environment `environmentName` by deep link, waits until that
 * environment is active and its schedule's "Cancel schedule" action shows; returns the action.
 */
export async function openScheduleActions(h: DesktopHarness, environmentName: string, taskId: string): Promise<Locator> {
  h.services.openDeepLink(`svc-monitor://${environmentName}/tasks/${taskId}`);
  await expect.poll(() => h.page.getByTestId('active-env').textContent()).toBe(environmentName);
  const cancel = h.page.getByRole('button', { name: 'Cancel schedule' });
  await cancel.waitFor({ timeout: 10_000 });
  return cancel;
}

/** A server an environment points at (a monitoring host or a demo process). */
export interface EnvironmentServer {
  baseUrl: string;
}

export interface TwoEnvironmentSetup<S extends EnvironmentServer> {
  /** Prefix of the temp folder the servers keep their databases in. */
  tempPrefix: string;
  /** Starts Staging's and Production's servers, in this order, in `dir`. */
  start(dir: string): Promise<[S, S]>;
  stop(server: S): Promise<void>;
  /** openDesktop options; the vault's safeStorage is the AES stand-in for gnome_libsecret. */
  desktop?: DesktopOptions;
  /** Extra fields of both environments (e.g. a group). */
  environments?: Partial<EnvironmentInput>;
  /** Extra fields of Production only (e.g. favourite). */
  production?: Partial<EnvironmentInput>;
}

export interface TwoEnvironmentDesktop<S extends EnvironmentServer> {
  readonly dir: string;
  /** Where the built renderer is served. */
  readonly url: string;
  readonly staging: S;
  readonly production: S;
  readonly h: DesktopHarness;
  readonly stagingId: string;
  readonly productionId: string;
}

/**
 * For the describe block it is called in: builds and serves the renderer, starts two servers
 * in a temp folder, opens the desktop (real main services, Chromium) and adds them as the
 * environments Staging (#2563eb) and Production (#dc2626, production); after the block closes
 * the desktop, the renderer server and both servers and removes the folder. The returned
 * object reads the live values (available from the tests and later hooks on).
 */
export function useTwoEnvironmentDesktop<S extends EnvironmentServer>(setup: TwoEnvironmentSetup<S>): TwoEnvironmentDesktop<S> {
  let dir: string | undefined;
  let renderer: RendererServer | undefined;
  let servers: S[] = [];
  let h: DesktopHarness | undefined;
  let state: TwoEnvironmentDesktop<S> | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), setup.tempPrefix));
    renderer = await serveRenderer(await buildDesktop());
    const [staging, production] = await setup.start(dir);
    servers = [staging, production];
    h = await openDesktop(renderer.url, { safeStorage: aesSafeStorage('gnome_libsecret'), ...setup.desktop });
    const shared = setup.environments ?? {};
    const stagingId = (await h.services.addEnvironment({ name: 'Staging', baseUrl: staging.baseUrl, colour: '#2563eb', isProduction: false, ...shared })).id;
    const productionId = (await h.services.addEnvironment({ name: 'Production', baseUrl: production.baseUrl, colour: '#dc2626', isProduction: true, ...shared, ...setup.production })).id;
    state = { dir, url: renderer.url, staging, production, h, stagingId, productionId };
  }, 300_000);

  afterAll(async () => {
    await h?.close();
    await renderer?.close();
    await Promise.all(servers.map((s) => setup.stop(s)));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  return lateBound(() => state, 'the two-environment desktop');
}
