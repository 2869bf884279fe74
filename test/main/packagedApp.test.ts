import { execFile, fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, posix, relative } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, startDemo, type CliProcess } from '../fixtures/demoProcess.js';
import type { HarnessRequest, HarnessSnapshot } from '../fixtures/main/packagedAppHarness.js';
import { packageNameOf, resolvePackageDir, runtimeModuleReferences } from '../fixtures/main/packagedModules.js';
import { waitFor } from '../fixtures/waitFor.js';

const require = createRequire(import.meta.url);
const asar = require('@electron/asar') as {
  listPackage(archive: string, options?: { isPack: boolean }): string[];
  extractFile(archive: string, file: string): Buffer;
  extractAll(archive: string, dest: string): void;
};
const run = promisify(execFile);
const fuses = require('@electron/fuses') as typeof import('@electron/fuses');
const yaml = require('js-yaml') as { load(text: string): unknown };

/** The packaged app in a Node child process, driven over IPC (see support/packagedAppHarness.ts). */
class PackagedApp {
  readonly output: string[] = [];
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  readonly started: Promise<void>;

  constructor(readonly child: ChildProcess) {
    let startedResolve: () => void = () => undefined;
    let startedReject: (e: Error) => void = () => undefined;
    this.started = new Promise((res, rej) => ((startedResolve = res), (startedReject = rej)));
    child.stdout?.on('data', (d: Buffer) => this.output.push(d.toString()));
    child.stderr?.on('data', (d: Buffer) => this.output.push(d.toString()));
    child.on('exit', (code) => {
      const err = new Error(`the packaged app exited (${code}):\n${this.output.join('')}`);
      startedReject(err);
      for (const p of this.pending.values()) p.reject(err);
    });
    child.on('message', (m: { id: number; ok: boolean; value?: unknown; error?: string }) => {
      if (m.id === 0) return startedResolve();
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.ok) p?.resolve(m.value);
      else p?.reject(new Error(m.error));
    });
  }

  request<T>(request: Omit<HarnessRequest, 'id'> & { type: HarnessRequest['type'] }): Promise<T> {
    const id = this.nextId++;
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.reject(new Error(`the packaged app has exited:\n${this.output.join('')}`));
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.send({ ...request, id });
    });
  }

  invoke<T>(channel: string, ...args: unknown[]): Promise<{ ok: true; value: T } | { ok: false; error: { code: string; message: string } }> {
    return this.request({ type: 'invoke', channel, args } as HarnessRequest);
  }

  snapshot(): Promise<HarnessSnapshot> {
    return this.request({ type: 'snapshot' } as HarnessRequest);
  }
}

interface StatusView {
  id: string;
  name: string;
  live: string;
  session: { auth: string };
}

/** Polls the packaged app's snapshot until `check` holds; a timeout shows the app's output. */
async function waitForSnapshot(app: PackagedApp, what: string, check: (s: HarnessSnapshot) => boolean, timeoutMs = 20_000): Promise<HarnessSnapshot> {
  try {
    return await waitFor(async () => {
      const snapshot = await app.snapshot();
      return check(snapshot) ? snapshot : undefined;
    }, timeoutMs, what, 50);
  } catch (error) {
    throw new Error(`${(error as Error).message}; app output:\n${app.output.join('')}`, { cause: error });
  }
}

function environmentsSent(s: HarnessSnapshot): Array<{ at: number; environments: StatusView[] }> {
  return s.sent
    .filter((e) => e.channel === 'svc-monitor:event' && (e.payload as { type: string }).type === 'environments')
    .map((e) => ({ at: e.at, environments: (e.payload as { environments: StatusView[] }).environments }));
}

function latestStatus(s: HarnessSnapshot, id: string): StatusView | undefined {
  let found: StatusView | undefined;
  for (const e of s.sent) {
    const p = e.payload as { type: string; environment?: StatusView; environments?: StatusView[] };
    if (p.type === 'status' && p.environment?.id === id) found = p.environment;
    if (p.type === 'environments') found = p.environments?.find((x) => x.id === id) ?? found;
  }
  return found;
}

describe('the packaged app (npm run package:dir)', () => {
  let work: string;
  let archive: string;
  let files: Set<string>;
  let unpacked: Set<string>;
  let appDir: string;
  let userData: string;
  let demos: CliProcess[] = [];
  let app: PackagedApp | undefined;
  const figures: Record<string, number> = {};

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'svc-packaged-'));
    const started = Date.now();
    // Package (build once) while the two demo servers start.
    const [, staging, production] = await Promise.all([
      run('bash', ['scripts/package-dir'], { cwd: REPO, env: { ...process.env, SVC_MONITOR_PACKAGE_OUT: join(work, 'release') }, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 }),
      startDemo(work),
      startDemo(work),
    ]);
    demos = [staging, production];
    figures['packageSeconds'] = (Date.now() - started) / 1000;
    archive = join(work, 'release/linux-unpacked/resources/app.asar');
    files = new Set(asar.listPackage(archive, { isPack: false }).map((p) => p.split('\\').join('/')));
    const unpackedDir = `${archive}.unpacked`;
    unpacked = new Set(existsSync(unpackedDir) ? (await import('node:fs')).readdirSync(unpackedDir, { recursive: true }).map((p) => `/${String(p).split('\\').join('/')}`) : []);
  }, 300_000);

  afterAll(async () => {
    if (app) {
      await app.request({ type: 'quit' } as HarnessRequest).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
      app.child.kill('SIGKILL');
    }
    await Promise.all(demos.map((d) => d.stop()));
    if (work) await rm(work, { recursive: true, force: true });
    if (Object.keys(figures).length > 0) console.log(`[packaged app] ${JSON.stringify(figures)}`);
  });

  it('is a Linux app folder around the Electron stand-in with app.asar holding package.json, out/ and the icons', async () => {
    const linux = join(work, 'release/linux-unpacked');
    expect((await stat(join(linux, 'svc-monitor'))).mode & 0o111).not.toBe(0);
    const pkg = JSON.parse(asar.extractFile(archive, 'package.json').toString('utf8')) as Record<string, unknown>;
    expect(pkg).toMatchObject({ main: 'out/main/index.js', type: 'module', desktopName: 'svc-monitor.desktop', author: { email: expect.stringMatching(/@/) } });
    expect(typeof pkg['homepage']).toBe('string');
    expect(pkg['devDependencies']).toBeUndefined();
    for (const f of ['/out/main/index.js', '/out/preload/index.cjs', '/out/renderer/index.html', '/build/icon.png', '/build/tray/tray.png', '/build/tray/tray-unread.png', '/build/tray/macos/trayTemplate.png', '/build/tray/macos/trayTemplate@2x.png']) expect(files, f).toContain(f);
    // Production dependencies only: no dev tool, no build tool in the archive.
    for (const dev of ['vite', 'vitest', 'electron', 'typescript', 'vue', 'zod']) expect(files.has(`/node_modules/${dev}/package.json`), dev).toBe(false);
    // keytar's native binary is outside the archive (a .node cannot load from inside it).
    expect([...unpacked].some((p) => p.endsWith('/keytar.node'))).toBe(true);
    const size = (await stat(archive)).size;
    const modules = [...files].filter((p) => /^\/node_modules\/(@[^/]+\/)?[^/@]+\/package\.json$/.test(p) || /\/node_modules\/(@[^/]+\/)?[^/@]+\/package\.json$/.test(p)).length;
    figures['asarBytes'] = size;
    figures['asarFiles'] = files.size;
    figures['asarModules'] = modules;
  });

  it('has its fuses flipped in the binary and carries the update feed electron-builder wrote from publish', async () => {
    const linux = join(work, 'release/linux-unpacked');
    const wire = await fuses.getCurrentFuseWire(join(linux, 'svc-monitor'));
    const F = fuses.FuseV1Options;
    // A fuse is one byte of the wire: '1' on, '0' off.
    const S = { ENABLE: '1'.charCodeAt(0), DISABLE: '0'.charCodeAt(0) };
    expect(wire.version).toBe(fuses.FuseVersion.V1);
    expect({
      runAsNode: wire[F.RunAsNode],
      nodeOptions: wire[F.EnableNodeOptionsEnvironmentVariable],
      inspect: wire[F.EnableNodeCliInspectArguments],
      asarIntegrity: wire[F.EnableEmbeddedAsarIntegrityValidation],
      onlyAsar: wire[F.OnlyLoadAppFromAsar],
      cookieEncryption: wire[F.EnableCookieEncryption],
      fileProtocolPrivileges: wire[F.GrantFileProtocolExtraPrivileges],
    }).toEqual({ runAsNode: S.DISABLE, nodeOptions: S.DISABLE, inspect: S.DISABLE, asarIntegrity: S.ENABLE, onlyAsar: S.ENABLE, cookieEncryption: S.ENABLE, fileProtocolPrivileges: S.DISABLE });
    const config = yaml.load(await readFile(join(REPO, 'build/electron-builder.yml'), 'utf8')) as { publish: Array<{ url: string }> };
    const feed = yaml.load(await readFile(join(linux, 'resources/app-update.yml'), 'utf8'));
    expect(feed).toEqual({ provider: 'generic', url: config.publish[0]!.url, updaterCacheDirName: expect.stringMatching(/^svc-monitor-updater$/) });
    // The updater is in the archive (a package: it picks its platform code at run time).
    expect(files).toContain('/node_modules/electron-updater/package.json');
  });

  it('holds every module the built main and preload bundles load at run time, with their dependencies', () => {
    const missing: string[] = [];
    const checked = new Set<string>();
    const checkPackage = (name: string, fromDir: string, why: string) => {
      const dir = resolvePackageDir(name, fromDir, files);
      if (!dir) {
        missing.push(`${name} (${why})`);
        return;
      }
      if (checked.has(dir)) return;
      checked.add(dir);
      const pkg = JSON.parse(asar.extractFile(archive, dir.slice(1) + '/package.json').toString('utf8')) as { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
      for (const dep of Object.keys(pkg.dependencies ?? {})) {
        if (pkg.optionalDependencies?.[dep]) continue;
        checkPackage(dep, dir, `dependency of ${name}`);
      }
    };
    for (const bundle of ['/out/main/index.js', '/out/preload/index.cjs']) {
      const code = asar.extractFile(archive, bundle.slice(1)).toString('utf8');
      for (const ref of runtimeModuleReferences(code)) {
        if (ref.specifier.startsWith('.')) {
          const target = posix.join(posix.dirname(bundle), ref.specifier);
          if (!files.has(target)) missing.push(`${ref.specifier} (${ref.how} in ${bundle})`);
          continue;
        }
        checkPackage(packageNameOf(ref.specifier), posix.dirname(bundle), `${ref.how} in ${bundle}`);
      }
    }
    expect(missing, `modules missing from app.asar: ${missing.join(', ')}`).toEqual([]);
    // The hub client is a package (its Node transports load through a hidden require).
    expect(checked).toContain('/node_modules/@microsoft/signalr');
    expect(checked).toContain('/node_modules/ws');
    expect(checked).toContain('/node_modules/eventsource');
    expect(checked).toContain('/node_modules/keytar'); // native: loaded at run time, not bundled
    expect(checked).toContain('/node_modules/electron-updater');
  });

  it('keeps the preload a small sandbox-compatible CommonJS file and the renderer free of inline scripts', () => {
    const preload = asar.extractFile(archive, 'out/preload/index.cjs').toString('utf8');
    expect(preload).toMatch(/require\("electron"\)/);
    expect(preload).not.toMatch(/^\s*(import|export)\s/m);
    expect(preload).toContain('exposeInMainWorld');
    expect(preload.length).toBeLessThan(10_000);
    const html = asar.extractFile(archive, 'out/renderer/index.html').toString('utf8');
    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    expect(html).not.toMatch(/<script(?![^>]*src=)[^>]*>[^<]+<\/script>/);
    for (const s of scripts) expect(files).toContain(posix.join('/out/renderer', s));
  });

  it('runs from the extracted archive in Node: window with the environment list, logins, hub over the packaged SignalR client, one notification and the tray badge for a failed task', async () => {
    // Outside the repository: Node finds only the packaged node_modules from here.
    appDir = join(work, 'app');
    asar.extractAll(archive, appDir);
    expect(relative(REPO, appDir).startsWith('..')).toBe(true);
    expect(existsSync(join(appDir, 'node_modules/keytar/build/Release/keytar.node'))).toBe(true);
    const harnessDir = join(work, 'harness');
    await mkdir(harnessDir);
    for (const name of ['recordingElectron', 'packagedAppHarness']) {
      const source = await readFile(join(REPO, 'test/fixtures/main', `${name}.ts`), 'utf8');
      const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
      await writeFile(join(harnessDir, `${name}.mjs`), js.replace("'./recordingElectron.js'", "'./recordingElectron.mjs'"));
    }
    userData = join(work, 'user-data');
    await mkdir(userData);
    // A returning user: two environments on file (what the window lists first).
    const [staging, production] = demos as [CliProcess, CliProcess];
    await writeFile(
      join(userData, 'environments.json'),
      JSON.stringify({
        version: 1,
        environments: [
          { id: 'staging', name: 'Staging', baseUrl: staging.baseUrl, colour: '#2563eb', isProduction: false },
          { id: 'production', name: 'Production', baseUrl: production.baseUrl, colour: '#dc2626', isProduction: true },
        ],
      }),
    );
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('NODE_') && !k.startsWith('VITEST') && k !== 'ELECTRON_RENDERER_URL'));
    app = new PackagedApp(fork(join(harnessDir, 'packagedAppHarness.mjs'), [appDir, userData], { cwd: appDir, env, execArgv: [], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] }));
    await app.started;

    // The window is shown with both environments listed.
    const first = await waitForSnapshot(app, 'the window with the environment list', (s) => s.shownAt !== undefined && environmentsSent(s).some((e) => e.environments.length === 2));
    expect(first.loadedUrl).toBe('app://console/');
    expect(first.windowOptions?.['webPreferences']).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, devTools: false });
    // The preload the window names is the packaged one.
    const preloadPath = (first.windowOptions?.['webPreferences'] as { preload: string }).preload;
    expect(relative(appDir, preloadPath).split('\\').join('/')).toBe('out/preload/index.cjs');
    expect(existsSync(preloadPath)).toBe(true);
    // The vault says which store it uses: the OS keychain, or memory with the reason (this
    // stand-in's safeStorage answers basic_text, which the vault refuses).
    const vault = await app.invoke<{ storage: string; reason?: string }>('vault.status');
    expect(vault.ok).toBe(true);
    const store = (vault as { value: { storage: string; reason?: string } }).value;
    expect(['keychain', 'memory']).toContain(store.storage);
    if (store.storage === 'memory') expect(store.reason).toMatch(/keychain.*basic_text/s);
    const listed = environmentsSent(first).find((e) => e.environments.length === 2)!;
    expect(listed.environments.map((e) => e.name)).toEqual(['Staging', 'Production']);
    figures['windowWithEnvironmentsMs'] = Math.round(Math.max(first.shownAt!, listed.at));

    // The packaged renderer is served through the app protocol, with the policy header.
    const page = await app.request<{ status: number; headers: Record<string, string>; text: string }>({ type: 'fetchApp', url: 'app://console/' } as HarnessRequest);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'/);
    const script = /<script[^>]*src="\.?\/?([^"]+)"/.exec(page.text)![1]!;
    const asset = await app.request<{ status: number }>({ type: 'fetchApp', url: `app://console/${script}` } as HarnessRequest);
    expect(asset.status).toBe(200);

    // Log in to both environments; each connects its hub.
    for (const id of ['staging', 'production']) {
      const login = await app.invoke<{ auth: string }>('session.loginPassword', id, { username: 'admin', password: 'admin', remember: false });
      expect(login, JSON.stringify(login)).toMatchObject({ ok: true, value: { auth: 'authenticated' } });
    }
    const connected = await waitForSnapshot(app, 'both hubs connected', (s) => ['staging', 'production'].every((id) => latestStatus(s, id)?.live === 'connected'), 30_000);
    figures['rssAfterTwoEnvironmentsMB'] = Math.round(connected.rss / 1024 / 1024);

    // A task fails on Production: exactly one notification covers it, and the tray shows unread.
    const failedId = await production.dispatch('failing');
    const isMine = (s: HarnessSnapshot) => s.sent.some((e) => {
      const p = e.payload as { type: string; environmentId?: string; event?: { kind: string; taskId?: string } };
      return p.type === 'svcEvent' && p.environmentId === 'production' && p.event?.kind === 'Failed' && p.event.taskId === failedId;
    });
    await waitForSnapshot(app, 'the Task Failed event on the Production hub', isMine, 20_000);
    const inbox = await app.invoke<Array<{ taskId: string; burstId: string; environmentId: string }>>('inbox.list', {});
    expect(inbox.ok).toBe(true);
    const item = (inbox as { value: Array<{ taskId: string; burstId: string; environmentId: string }> }).value.find((i) => i.taskId === failedId);
    expect(item).toBeDefined();
    // The burst closes after its window (4 s in the app), then shows one notification; a
    // click on it opens the task (or the burst in the inbox). The demo keeps failing tasks in
    // the background, so the notification is found by what it opens.
    const opens = (s: HarnessSnapshot) => s.sent.filter((e) => (e.payload as { type: string }).type === 'open').map((e) => (e.payload as { target: { kind: string; taskId?: string; burstId?: string } }).target);
    const clicked = new Set<number>();
    const mine: number[] = [];
    const deadline = Date.now() + 20_000;
    let notified: HarnessSnapshot;
    for (;;) {
      notified = await app.snapshot();
      for (let i = 0; i < notified.notifications.length; i++) {
        if (clicked.has(i)) continue;
        clicked.add(i);
        const before = opens(notified).length;
        await app.request({ type: 'clickNotification', index: i } as HarnessRequest);
        const after = await waitForSnapshot(app, 'the notification click', (s) => opens(s).length > before);
        const target = opens(after).at(-1)!;
        if (target.taskId === failedId || target.burstId === item!.burstId) mine.push(i);
      }
      if (mine.length > 0 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(mine).toHaveLength(1);
    const shown = notified.notifications[mine[0]!]!;
    expect(shown.title).toMatch(/^⚠ PRODUCTION · (Task failed|\d+ tasks failed) in Production$/);
    expect(shown.urgency).toBe('critical');
    const badges = notified.calls.filter((c) => c.startsWith('badge:')).map((c) => Number(c.slice(6)));
    expect(badges.at(-1)).toBeGreaterThan(0);
    expect(notified.trayImages.at(-1)).toMatchObject({ path: expect.stringMatching(/tray-unread\.png$/) });
    expect(app.output.join('')).not.toMatch(/Cannot find (module|package)/);
    // The log in user data says what happened, without the session tokens.
    const logText = await readFile(join(userData, 'logs/main.log'), 'utf8');
    expect(logText).toMatch(/INFO started with 2 environment\(s\)/);
    expect(logText).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
  }, 90_000);
});
