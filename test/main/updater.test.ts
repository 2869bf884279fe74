import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { DebUpdater } from 'electron-updater';
import type { AppAdapter } from 'electron-updater/out/AppAdapter.js';
import { ElectronHttpExecutor } from 'electron-updater/out/electronHttpExecutor.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ElectronAppUpdater } from '../../src/main/update/ElectronAppUpdater.js';
import { restartPromptListener, type RestartNotice } from '../../src/main/update/restartPrompt.js';
import { resolveUpdateFeed, UPDATE_URL_VARIABLE, type UpdateFeed } from '../../src/main/update/updateFeed.js';
import type { UpdateStatus } from '../../src/main/update/UpdateStatus.js';
import { createTempDir } from '../fixtures/main/tempDir.js';
import { startTinyproxy } from '../fixtures/main/tinyproxy.js';
import { nodeLoginRequest } from '../../src/main/network/nodeLoginRequest.js';
import type { AnswerProxyLogin } from '../../src/main/network/loginRequestFetch.js';
import { ProxyLogin } from '../../src/main/network/ProxyLogin.js';
import { waitFor } from '../fixtures/waitFor.js';

/**
 * electron-updater's real Linux updater (DebUpdater: generic provider, staged rollout, sha512
 * verification, install-on-quit) behind the console's ElectronAppUpdater, against a release
 * feed served on loopback. Only Electron is replaced: the app by a plain adapter, Electron's
 * network stack by electron-builder's Node HTTP executor.
 */
const ARTIFACT = 'svc-monitor_0.2.0_amd64.deb';
const artifact = randomBytes(96 * 1024);
const sha512 = (bytes: Buffer) => createHash('sha512').update(bytes).digest('base64');

function latestYml(version: string, digest: string, extra = ''): string {
  return [`version: ${version}`, 'files:', `  - url: ${ARTIFACT}`, `    sha512: ${digest}`, `    size: ${artifact.length}`, `path: ${ARTIFACT}`, `sha512: ${digest}`, "releaseDate: '2026-11-27T08:00:00.000Z'", extra].join('\n');
}

/** electron-updater's Electron executor with Node's http.request in place of Electron's net.request. */
class LoopbackExecutor extends ElectronHttpExecutor {
  constructor() {
    super(null as never);
  }
  override createRequest(options: RequestOptions, callback: (response: IncomingMessage) => void): ReturnType<ElectronHttpExecutor['createRequest']> {
    return httpRequest(options, callback) as ClientRequest as unknown as ReturnType<ElectronHttpExecutor['createRequest']>;
  }
}

/**
 * electron-updater's Electron executor over a request with Chromium's events through a real proxy
 * (Node's stand-in for net.request): a 407 raises `login` on the request, which the executor
 * passes to the updater's own `login` event, as electron-updater does in the app.
 */
class ProxiedExecutor extends ElectronHttpExecutor {
  /** One session (one auth cache) for the updater's requests, as electron-updater's own session. */
  private readonly open: ReturnType<typeof nodeLoginRequest>;
  constructor(engine: { emit(event: 'login', ...args: unknown[]): boolean }, proxy: string) {
    super((authInfo, callback) => engine.emit('login', authInfo, callback));
    this.open = nodeLoginRequest({ proxy });
  }
  override createRequest(options: RequestOptions, callback: (response: IncomingMessage) => void): ReturnType<ElectronHttpExecutor['createRequest']> {
    const url = `${options.protocol ?? 'http:'}//${options.hostname ?? options.host}${options.port ? `:${options.port}` : ''}${options.path ?? '/'}`;
    const request = this.open({ method: options.method ?? 'GET', url, redirect: 'manual' });
    for (const [name, value] of Object.entries(options.headers ?? {})) if (value !== undefined) request.setHeader(name, String(value));
    request.on('response', callback as never);
    const login = (this as unknown as { proxyLoginCallback?: (...args: unknown[]) => void }).proxyLoginCallback;
    if (login) request.on('login', login as never);
    return request as unknown as ReturnType<ElectronHttpExecutor['createRequest']>;
  }
}

/** The release feed: what each path serves, and every path requested. */
const served = new Map<string, string | Buffer>();
const requested: string[] = [];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requested.push(path);
    const body = served.get(path);
    if (body === undefined) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-length': Buffer.byteLength(body) }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  served.clear();
  requested.length = 0;
});

/** Serves a release at `/<prefix>`: latest-linux.yml and the artifact. */
function publish(prefix: string, yml: string): void {
  served.set(`/${prefix}/latest-linux.yml`, yml);
  served.set(`/${prefix}/${ARTIFACT}`, artifact);
}

interface Installed {
  updater: ElectronAppUpdater;
  logLines: string[];
  cacheDir: string;
  quitHandlers: number;
}

/** An installed console at `version` whose build feed (app-update.yml) is `feedUrl`. */
async function installed(version: string, feedUrl: string, env: Record<string, string> = {}, onAppImageRenamed?: (path: string) => void, behind?: { proxy: string; proxyLogin?: AnswerProxyLogin }): Promise<Installed> {
  const { dir, cleanup } = await createTempDir('svc-updater-');
  cleanups.push(cleanup);
  const resources = join(dir, 'resources');
  await import('node:fs/promises').then((fs) => fs.mkdir(resources));
  // What electron-builder writes from `publish` (see build/electron-builder.yml).
  await writeFile(join(resources, 'app-update.yml'), `provider: generic\nurl: ${feedUrl}\nupdaterCacheDirName: svc-monitor-updater\n`);
  const result = { quitHandlers: 0 } as Installed;
  const adapter: AppAdapter = {
    version,
    name: 'Svc Monitor',
    isPackaged: true,
    appUpdateConfigPath: join(resources, 'app-update.yml'),
    userDataPath: join(dir, 'user-data'),
    baseCachePath: join(dir, 'cache'),
    whenReady: async () => undefined,
    relaunch: () => undefined,
    quit: () => undefined,
    onQuit: () => void result.quitHandlers++,
  };
  const feed: UpdateFeed = resolveUpdateFeed({ packaged: true, env, resourcesPath: resources, exists: existsSync });
  const logLines: string[] = [];
  const updater = new ElectronAppUpdater({
    currentVersion: version,
    feed,
    createEngine: () => {
      const engine = new DebUpdater(null, adapter);
      (engine as unknown as { httpExecutor: ElectronHttpExecutor }).httpExecutor = behind ? new ProxiedExecutor(engine as never, behind.proxy) : new LoopbackExecutor();
      return engine;
    },
    log: { info: (m) => logLines.push(`INFO ${m}`), warn: (m) => logLines.push(`WARN ${m}`), error: (m) => logLines.push(`ERROR ${m}`) },
    ...(onAppImageRenamed ? { onAppImageRenamed } : {}),
    ...(behind?.proxyLogin ? { proxyLogin: behind.proxyLogin } : {}),
  });
  cleanups.push(() => updater.dispose());
  return Object.assign(result, { updater, logLines, cacheDir: join(dir, 'cache', 'svc-monitor-updater') });
}

async function settled(updater: ElectronAppUpdater, states: Array<UpdateStatus['state']>): Promise<UpdateStatus> {
  await waitFor(() => states.includes(updater.status().state), 10_000, `updater state in ${states.join('/')} (now ${JSON.stringify(updater.status())})`, 25);
  return updater.status();
}

describe('the console updater (electron-updater, generic feed on loopback)', () => {
  it('finds the newer version, downloads it with a verified sha512 and installs it on quit', async () => {
    publish('feed', latestYml('0.2.0', sha512(artifact)));
    const app = await installed('0.1.0', `${base}/feed`);
    const { updater, cacheDir } = app;
    const seen: string[] = [];
    updater.onStatus((s) => seen.push(s.state));
    const notices: RestartNotice[] = [];
    updater.onStatus(restartPromptListener((n) => notices.push(n)));
    const afterCheck = await updater.checkNow({ manual: false });
    expect(afterCheck).toMatchObject({ state: 'downloading', currentVersion: '0.1.0', availableVersion: '0.2.0' });
    const done = await settled(updater, ['downloaded', 'error']);
    expect(done).toMatchObject({ state: 'downloaded', availableVersion: '0.2.0', progressPercent: 100 });
    expect(seen.slice(0, 2)).toEqual(['checking', 'downloading']);
    // The verified file is in the updater's cache, byte for byte, and waits for the quit.
    const files = await readdir(cacheDir, { recursive: true });
    const deb = files.find((f) => String(f).endsWith('.deb'));
    expect(deb).toBeDefined();
    expect((await readFile(join(cacheDir, String(deb)))).equals(artifact)).toBe(true);
    expect(app.quitHandlers).toBe(1);
    // One restart notice for the version.
    expect(notices).toEqual([{ title: 'Svc Monitor 0.2.0 is ready', body: expect.stringMatching(/restart now.*installed the next time you quit/) }]);
    // A later check does not download again, nor ask again.
    expect((await updater.checkNow({ manual: true })).state).toBe('downloaded');
    expect(notices).toHaveLength(1);
    expect(requested.filter((p) => p.endsWith('.deb'))).toHaveLength(1);
  });

  it("behind an authenticating proxy (a private tinyproxy): the updater's login is answered (keychain, then the prompt) and the update downloads through it", async () => {
    const { dir, cleanup } = await createTempDir('svc-updater-proxy-');
    const proxy = await startTinyproxy(dir, { username: 'jdoe', password: 'pr0xy-pw' });
    cleanups.push(async () => (await proxy.stop(), await cleanup()));
    publish('feed', latestYml('0.2.0', sha512(artifact)));
    const kept = new Map<string, { username?: string; password?: string }>();
    const prompts: string[] = [];
    const proxyLogin = new ProxyLogin({
      vault: { get: async (a) => kept.get(a), update: async (a, p) => kept.set(a, { ...kept.get(a), ...p }), delete: async (a) => void kept.delete(a) },
      ask: async (request) => (prompts.push(request.proxy), { username: 'jdoe', password: 'pr0xy-pw', remember: true }),
    });
    const { updater } = await installed('0.1.0', `${base}/feed`, {}, undefined, { proxy: proxy.url, proxyLogin: (info, attempt) => proxyLogin.credentials(info, attempt) });
    await updater.checkNow({ manual: true });
    expect(await settled(updater, ['downloaded', 'error'])).toMatchObject({ state: 'downloaded', availableVersion: '0.2.0' });
    // One prompt (the first request); the later requests were answered from the keychain.
    expect(prompts).toEqual([`127.0.0.1:${proxy.port}`]);
    expect(kept.get(`proxy:127.0.0.1:${proxy.port}`)).toEqual({ username: 'jdoe', password: 'pr0xy-pw' });
    expect(await proxy.forwarded()).toBeGreaterThanOrEqual(2);
    expect(requested.filter((p) => p.endsWith('.deb'))).toHaveLength(1);
  }, 60_000);

  it('an AppImage installed under a new name (appimage-filename-updated) is passed on, so start at login and the link handler follow it', async () => {
    publish('feed', latestYml('0.1.0', sha512(artifact)));
    const renamed: string[] = [];
    const { updater, logLines } = await installed('0.1.0', `${base}/feed`, {}, (path) => renamed.push(path));
    await updater.checkNow({ manual: true });
    // electron-updater's engine, as AppImageUpdater.doInstall emits it after moving the file.
    const engine = (updater as unknown as { engine: { emit(event: string, path: string): boolean } }).engine;
    engine.emit('appimage-filename-updated', '/home/ops/Apps/Svc-Monitor-0.2.0.AppImage');
    expect(renamed).toEqual(['/home/ops/Apps/Svc-Monitor-0.2.0.AppImage']);
    expect(logLines).toContain('INFO updater: the AppImage is now /home/ops/Apps/Svc-Monitor-0.2.0.AppImage');
  });

  it('refuses an artifact whose sha512 does not match the feed: one clear status and log line, nothing kept, no retry loop', async () => {
    publish('feed', latestYml('0.2.0', sha512(Buffer.from('another build'))));
    const { updater, cacheDir, logLines } = await installed('0.1.0', `${base}/feed`);
    await updater.checkNow({ manual: false });
    const refused = await settled(updater, ['error', 'downloaded']);
    expect(refused.state).toBe('error');
    expect(refused.message).toMatch(/failed its sha512 check and was discarded/);
    expect(refused.message).not.toMatch(/\n|expected|at .*\.js/);
    expect(logLines.filter((l) => l.startsWith('WARN updater: The downloaded update failed its sha512 check'))).toHaveLength(1);
    const left = existsSync(cacheDir) ? (await readdir(cacheDir, { recursive: true })).filter((f) => String(f).endsWith('.deb')) : [];
    expect(left).toEqual([]);
    // It does not try again by itself.
    await new Promise((r) => setTimeout(r, 300));
    expect(requested.filter((p) => p.endsWith('.deb'))).toHaveLength(1);
    expect(updater.status().state).toBe('error');
  });

  it('reports "up to date" for the same version without downloading anything', async () => {
    publish('feed', latestYml('0.1.0', sha512(artifact)));
    const { updater } = await installed('0.1.0', `${base}/feed`);
    const status = await updater.checkNow({ manual: true });
    expect(status).toMatchObject({ state: 'up-to-date', currentVersion: '0.1.0' });
    expect(status.message).toBeUndefined();
    expect(Date.parse(status.checkedAtUtc!)).toBeGreaterThan(Date.now() - 60_000);
    expect(requested.filter((p) => p.endsWith('.deb'))).toEqual([]);
  });

  it('says the feed cannot be reached, and resolves instead of throwing', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const { updater, logLines } = await installed('0.1.0', `http://127.0.0.1:${port}/feed`);
    const status = await updater.checkNow({ manual: true });
    expect(status.state).toBe('error');
    expect(status.message).toMatch(/^The update feed cannot be reached \(ECONNREFUSED\)/);
    expect(logLines.some((l) => l.startsWith('WARN updater: The update feed cannot be reached'))).toBe(true);
  });

  it('keeps a staged rollout from the periodic check of a user outside it; a manual check takes the new version', async () => {
    publish('feed', latestYml('0.2.0', sha512(artifact), 'stagingPercentage: 0'));
    const { updater } = await installed('0.1.0', `${base}/feed`);
    const periodic = await updater.checkNow({ manual: false });
    expect(periodic.state).toBe('up-to-date');
    expect(periodic.message).toMatch(/0\.2\.0 is rolling out to 0% of users/);
    expect(requested.filter((p) => p.endsWith('.deb'))).toEqual([]);
    const manual = await updater.checkNow({ manual: true });
    expect(manual).toMatchObject({ state: 'downloading', availableVersion: '0.2.0' });
    expect((await settled(updater, ['downloaded', 'error'])).state).toBe('downloaded');
  });

  it(`reads a private mirror from ${UPDATE_URL_VARIABLE} instead of the build's feed`, async () => {
    publish('mirror', latestYml('0.2.0', sha512(artifact)));
    const { updater } = await installed('0.1.0', `${base}/unused-build-feed`, { [UPDATE_URL_VARIABLE]: `${base}/mirror/` });
    expect((await updater.checkNow({ manual: false })).availableVersion).toBe('0.2.0');
    expect((await settled(updater, ['downloaded', 'error'])).state).toBe('downloaded');
    expect(requested.some((p) => p.startsWith('/unused-build-feed'))).toBe(false);
    expect(requested).toContain(`/mirror/${ARTIFACT}`);
  });
});

describe('where the updater looks (resolveUpdateFeed)', () => {
  const inputs = { packaged: true, env: {}, resourcesPath: '/opt/Svc Monitor/resources', exists: () => true };
  it('is off in a development run, and off with the reason when a build has no feed', () => {
    expect(resolveUpdateFeed({ ...inputs, packaged: false })).toMatchObject({ kind: 'disabled', reason: expect.stringMatching(/development run/) });
    expect(resolveUpdateFeed({ ...inputs, exists: () => false })).toMatchObject({ kind: 'disabled', reason: expect.stringMatching(/no update feed.*SVC_MONITOR_UPDATE_URL/) });
    expect(resolveUpdateFeed(inputs)).toEqual({ kind: 'build', configPath: join('/opt/Svc Monitor/resources', 'app-update.yml') });
  });
  it('names the variable when the mirror URL is unusable', () => {
    expect(resolveUpdateFeed({ ...inputs, env: { [UPDATE_URL_VARIABLE]: 'not a url' } })).toMatchObject({ kind: 'disabled', reason: expect.stringMatching(/^SVC_MONITOR_UPDATE_URL is not a URL/) });
    expect(resolveUpdateFeed({ ...inputs, env: { [UPDATE_URL_VARIABLE]: 'file:///tmp/feed' } })).toMatchObject({ kind: 'disabled', reason: expect.stringMatching(/must be an https URL/) });
    // Unsigned Linux packages would run whatever an http mirror's network serves: https only,
    // plain http only on the loopback (a mirror on this machine).
    expect(resolveUpdateFeed({ ...inputs, env: { [UPDATE_URL_VARIABLE]: 'http://mirror.example/svc' } })).toMatchObject({ kind: 'disabled', reason: expect.stringMatching(/^SVC_MONITOR_UPDATE_URL must be an https URL .*not http:\/\/mirror\.example/) });
    expect(resolveUpdateFeed({ ...inputs, env: { [UPDATE_URL_VARIABLE]: 'http://10.0.0.5:8080/svc' } })).toMatchObject({ kind: 'disabled' });
    expect(resolveUpdateFeed({ ...inputs, env: { [UPDATE_URL_VARIABLE]: 'http://127.0.0.1:8080/svc' } })).toEqual({ kind: 'url', url: 'http://127.0.0.1:8080/svc' });
    expect(resolveUpdateFeed({ ...inputs, env: { [UPDATE_URL_VARIABLE]: 'http://[::1]:8080/svc' } })).toEqual({ kind: 'url', url: 'http://[::1]:8080/svc' });
    expect(resolveUpdateFeed({ ...inputs, env: { [UPDATE_URL_VARIABLE]: 'https://user:pw@mirror.example/feed' } })).toMatchObject({ kind: 'disabled', reason: expect.stringMatching(/credentials/) });
    expect(resolveUpdateFeed({ ...inputs, env: { [UPDATE_URL_VARIABLE]: 'https://mirror.example/svc' } })).toEqual({ kind: 'url', url: 'https://mirror.example/svc' });
  });
});
