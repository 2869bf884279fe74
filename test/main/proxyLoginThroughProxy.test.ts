import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/shared/environment.js';
import type { RendererEvent } from '../../src/shared/rendererEvents.js';
import { electronNetwork, partitionOf, type ElectronNetworkApi } from '../../src/main/network/electronNetwork.js';
import type { AnswerProxyLogin } from '../../src/main/network/loginRequestFetch.js';
import { nodeLoginRequest } from '../../src/main/network/nodeLoginRequest.js';
import { nodeNetworkVia } from '../../src/main/network/nodeNetwork.js';
import type { ProxyAuthInfo, ProxyLoginAttempt } from '../../src/main/network/ProxyLogin.js';
import { createHttpClient } from '../../src/main/session/httpClient.js';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { createConsole, type RecordingConsole } from '../fixtures/main/consoleSuite.js';
import { startFullHost, type FullHost } from '../fixtures/main/fullHost.js';
import { createRecordingElectron, type NetRequestOptions } from '../fixtures/main/recordingElectron.js';
import { createTempDir } from '../fixtures/main/tempDir.js';
import { startTinyproxy, type Tinyproxy } from '../fixtures/main/tinyproxy.js';
import { waitFor } from '../fixtures/waitFor.js';

type Prompt = Extract<RendererEvent, { type: 'proxyLogin' }>['request'];

describe('behind an authenticating proxy (a private tinyproxy with BasicAuth on loopback)', () => {
  let dir: { dir: string; cleanup: () => Promise<void> };
  let proxy: Tinyproxy;
  let host: FullHost;
  let recording: RecordingConsole;
  const prompts: Prompt[] = [];
  const asked: Array<{ info: ProxyAuthInfo; attempt: ProxyLoginAttempt }> = [];
  /** What the app gives the network: the services' ProxyLogin (keychain, then the prompt), recorded. */
  const answer: AnswerProxyLogin = (info, attempt) => (asked.push({ info, attempt }), recording.services.proxyLogin.credentials(info, attempt));
  const account = () => `proxy:127.0.0.1:${proxy.port}`;

  beforeAll(async () => {
    dir = await createTempDir('svc-proxy-login-');
    proxy = await startTinyproxy(dir.dir, { username: 'jdoe', password: 'pr0xy-pw' });
    host = await startFullHost(dir.dir, { username: 'ops', password: 'pw' });
    recording = await createConsole(join(dir.dir, 'user-data'), { safeStorage: aesSafeStorage('gnome_libsecret'), network: nodeNetworkVia({ url: proxy.url, login: answer }) });
    recording.services.onEvent((e) => e.type === 'proxyLogin' && prompts.push(e.request));
  }, 60_000);
  afterAll(async () => {
    await recording?.services.dispose({ timeoutMs: 2_000 });
    await host?.close();
    await proxy?.stop();
    await dir?.cleanup();
  });

  it("Node's stack: the proxy's 407 prompts naming it; the credentials given (remembered) are sent again and the environment answers through the proxy", async () => {
    const { services } = recording;
    const adding = services.addEnvironment({ name: 'Behind proxy', baseUrl: host.baseUrl, colour: '#2563eb', isProduction: false });
    await waitFor(() => prompts.length === 1, 15_000, 'the proxy prompt', 25);
    expect(prompts[0]).toEqual({ id: expect.any(String), proxy: `127.0.0.1:${proxy.port}`, realm: 'Tinyproxy', scheme: 'basic', retry: false });
    services.answerProxyLogin(prompts[0]!.id, { username: 'jdoe', password: 'pr0xy-pw', remember: true });
    const env = await adding;
    // Through the proxy: the host's /config answered (it asks for a login; nothing says "Cannot reach").
    await waitFor(() => services.environments()[0]?.session.auth === 'logged-out', 15_000, 'the session reaching the host', 25);
    expect(services.environments()[0]?.statusMessage ?? '').not.toMatch(/Cannot reach/);
    await services.requireSession(env.id).loginWithPassword('ops', 'pw', false);
    const tasks = await services.callApi(env.id, 'tasks.list', { page: 1, pageSize: 5 });
    expect(tasks).toMatchObject({ page: 1 });
    expect(prompts).toHaveLength(1);
    expect(await services.vault.get(account())).toMatchObject({ username: 'jdoe', password: 'pr0xy-pw' });
    expect(await proxy.forwarded()).toBeGreaterThan(0);
  }, 60_000);

  it('an environment with its own session asks within the minute: answered from the keychain, no prompt, and the kept credentials stay', async () => {
    const { services } = recording;
    const before = prompts.length;
    const env = await services.addEnvironment({ name: 'Lab behind proxy', baseUrl: host.baseUrl, colour: '#16a34a', isProduction: false, allowSelfSigned: true });
    await waitFor(() => services.environments().find((e) => e.id === env.id)?.session.auth === 'logged-out', 15_000, 'the second session reaching the host', 25);
    // (The first environment's live connection asks too, in its own scope.)
    expect(asked.filter((a) => a.attempt.scope !== 'default').map((a) => a.attempt)).toEqual([{ scope: `environment:${env.id}`, refused: false }]);
    expect(prompts.length).toBe(before);
    expect(await services.vault.get(account())).toMatchObject({ username: 'jdoe', password: 'pr0xy-pw' });
    await services.removeEnvironment(env.id);
  }, 60_000);

  describe("Electron's stack: net.request against a stand-in ClientRequest that goes through the real proxy and raises login on its 407", () => {
    let opened: NetRequestOptions[];
    /** The Electron stack's logins only (the Node environments above keep polling through the proxy). */
    const electronAsked: Array<{ info: ProxyAuthInfo; attempt: ProxyLoginAttempt }> = [];
    const electronAnswer: AnswerProxyLogin = (info, attempt) => (electronAsked.push({ info, attempt }), recording.services.proxyLogin.credentials(info, attempt));
    let rec: ReturnType<typeof createRecordingElectron>;
    let networkFor: (environment: Environment) => ReturnType<ReturnType<typeof electronNetwork>>;
    const env = (extra: Partial<Environment> = {}): Environment => ({ id: 'stg', name: 'Staging', baseUrl: host.baseUrl, colour: '#2563eb', isProduction: false, ...extra });

    beforeAll(() => {
      rec = createRecordingElectron(dir.dir, process.cwd());
      opened = [];
      // The stand-in: Node's request with Chromium's events, forwarding to the real tinyproxy; one
      // per session, as each Chromium session has its own auth cache.
      const bySession = new Map<unknown, ReturnType<typeof nodeLoginRequest>>();
      rec.electron.net.request = (options) => {
        opened.push(options);
        if (!bySession.has(options.session)) bySession.set(options.session, nodeLoginRequest({ proxy: proxy.url }));
        return bySession.get(options.session)!(options) as unknown as ReturnType<typeof rec.electron.net.request>;
      };
      networkFor = electronNetwork(rec.electron as unknown as ElectronNetworkApi, electronAnswer);
    });

    it('the default session: the keychain answers the login and the API answers through the proxy', async () => {
      electronAsked.length = 0;
      const http = createHttpClient(`${host.baseUrl}/svc-monitoring/api`, 10_000, networkFor(env()).http);
      const config = await http.get('/config');
      expect(config.status).toBe(200);
      expect(config.data).toMatchObject({ signalRHubPath: '/svc-monitoring/hub' });
      expect(opened.at(-1)).toMatchObject({ method: 'GET', url: `${host.baseUrl}/svc-monitoring/api/config`, redirect: 'manual', session: rec.electron.session.defaultSession });
      expect(electronAsked).toEqual([{ info: { host: '127.0.0.1', port: proxy.port, realm: 'Tinyproxy', scheme: 'basic' }, attempt: { scope: 'default', refused: false } }]);
    });

    it("a custom-trust environment's requests use its own session, whose first login is a first attempt (the kept credentials stay)", async () => {
      electronAsked.length = 0;
      const http = createHttpClient(`${host.baseUrl}/svc-monitoring/api`, 10_000, networkFor(env({ id: 'lab', allowSelfSigned: true })).http);
      expect((await http.get('/config')).status).toBe(200);
      expect(opened.at(-1)?.session).toBe(rec.partitions.get(partitionOf('lab')));
      expect(electronAsked.map((a) => a.attempt)).toEqual([{ scope: partitionOf('lab'), refused: false }]);
      expect(await recording.services.vault.get(account())).toMatchObject({ password: 'pr0xy-pw' });
    });

    it('kept credentials the proxy refuses (407 again): the same request asks again, a prompt saying so, the refused ones are forgotten; a cancel gives the 407', async () => {
      // tinyproxy answers wrong credentials with 401 and WWW-Authenticate (not RFC 7235's 407), which
      // Chromium takes for the server's own challenge: the refusal is played by a proxy that answers
      // every request with 407.
      const strict = createServer((req, res) => (req.resume(), res.writeHead(407, { 'proxy-authenticate': 'Basic realm="Strict"' }).end('refused')));
      await new Promise<void>((r) => strict.listen(0, '127.0.0.1', () => r()));
      const port = (strict.address() as AddressInfo).port;
      const { services } = recording;
      await services.vault.update(`proxy:127.0.0.1:${port}`, { username: 'jdoe', password: 'changed-since' });
      const through = nodeLoginRequest({ proxy: `http://127.0.0.1:${port}` });
      const before = rec.electron.net.request;
      rec.electron.net.request = (options) => (opened.push(options), through(options) as unknown as ReturnType<typeof rec.electron.net.request>);
      try {
        electronAsked.length = 0;
        const count = prompts.length;
        const http = createHttpClient(`${host.baseUrl}/svc-monitoring/api`, 10_000, electronNetwork(rec.electron as unknown as ElectronNetworkApi, electronAnswer)(env()).http);
        const answered = http.get('/config');
        await waitFor(() => prompts.length === count + 1, 15_000, 'the prompt after the refusal', 25);
        expect(prompts.at(-1)).toMatchObject({ proxy: `127.0.0.1:${port}`, realm: 'Strict', retry: true });
        expect(electronAsked.map((a) => a.attempt)).toEqual([
          { scope: 'default', refused: false },
          { scope: 'default', refused: true },
        ]);
        expect(await services.vault.get(`proxy:127.0.0.1:${port}`)).toBeUndefined();
        // The good credentials of the other proxy are untouched.
        expect(await services.vault.get(account())).toMatchObject({ password: 'pr0xy-pw' });
        services.answerProxyLogin(prompts.at(-1)!.id, null);
        expect((await answered).status).toBe(407);
      } finally {
        rec.electron.net.request = before;
        await new Promise<void>((r) => strict.close(() => r()));
      }
    });
  });
});
