import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/shared/environment.js';
import { electronNetwork, type ElectronNetworkApi } from '../../src/main/network/electronNetwork.js';
import type { EnvironmentNetwork } from '../../src/main/network/environmentNetwork.js';
import { nodeNetwork } from '../../src/main/network/nodeNetwork.js';
import { createHttpClient, httpError, networkError } from '../../src/main/session/httpClient.js';
import { createRecordingElectron } from '../fixtures/main/recordingElectron.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

/** A server that records each request's path and Authorization header; `answer` replies. */
async function recordingServer(answer: (path: string, res: import('node:http').ServerResponse) => void, listen = '127.0.0.1') {
  const seen: Array<{ path: string; authorization?: string }> = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    const path = (req.url ?? '/').split('?')[0]!;
    seen.push({ path, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    answer(path, res);
  });
  await new Promise<void>((r) => server.listen(0, listen, () => r()));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  /** The same server by the machine's name: http:// there is not loopback to the production rule. */
  const byName = `http://${hostname()}:${port}`;
  return { origin, byName, seen, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

type Recorder = Awaited<ReturnType<typeof recordingServer>>;
const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/** The message an API GET ends with on this network: the answer's error, or the transport's. */
async function outcomeOf(network: EnvironmentNetwork, origin: string, path: string): Promise<{ status?: number; message?: string }> {
  const http = createHttpClient(`${origin}/svc-monitoring/api`, 5_000, network.http);
  try {
    const response = await http.get(path, { headers: { Authorization: 'Bearer secret-token' } });
    return response.status >= 300 ? { status: response.status, message: httpError(response, `GET ${path}`).message } : { status: response.status };
  } catch (err) {
    return { message: networkError(err, `GET ${path}`).message };
  }
}

interface Hosts {
  /** Answers /config; its negotiate sends the client to `evil`. */
  host: Recorder;
  /** Every path redirects to `evil`. */
  redirecting: Recorder;
  /** Must never be reached. */
  evil: Recorder;
  dir: string;
}

const base = (extra: Partial<Environment>): Environment => ({ id: 'env', name: 'Lab', baseUrl: 'http://127.0.0.1:9', colour: '#2563eb', isProduction: false, ...extra });

/**
 * The network rules, one table: each case runs on Node's stack (tests, the e2e harness) and on
 * Electron's (the packaged app: net.request, here against the recording electron module).
 */
const RULES: Array<{ rule: string; check(networkFor: (e: Environment) => EnvironmentNetwork, hosts: Hosts): Promise<void> }> = [
  {
    rule: 'a production environment over http without the typed confirmation is refused before any request (API and hub)',
    async check(networkFor, { host }) {
      const before = host.seen.length;
      const network = networkFor(base({ name: 'Prod', isProduction: true, baseUrl: host.byName }));
      expect((await outcomeOf(network, host.byName, '/config')).message).toMatch(/a production environment at http:\/\/ sends its password and token unencrypted/);
      await expect(network.hub(`${host.byName}/svc-monitoring/hub`)).rejects.toThrow(/production environment at http:\/\//);
      expect(host.seen.length).toBe(before);
    },
  },
  {
    rule: 'the same environment with its name typed as the confirmation is reached',
    async check(networkFor, { host }) {
      const network = networkFor(base({ name: 'Prod', isProduction: true, baseUrl: host.byName, insecureHttpConfirmedName: 'Prod' }));
      expect(await outcomeOf(network, host.byName, '/config')).toEqual({ status: 200 });
    },
  },
  {
    rule: 'a redirect is not followed: the request fails naming where it pointed, nothing (no token) reaches the other server',
    async check(networkFor, { redirecting, evil }) {
      const outcome = await outcomeOf(networkFor(base({ baseUrl: redirecting.origin })), redirecting.origin, '/tasks');
      expect(outcome.message).toContain(`the host answered with a redirect to ${evil.origin}/collect/svc-monitoring/api/tasks`);
      expect(redirecting.seen.at(-1)).toEqual({ path: '/svc-monitoring/api/tasks', authorization: 'Bearer secret-token' });
      expect(evil.seen).toEqual([]);
    },
  },
  {
    rule: "the hub's negotiate follows no redirect either",
    async check(networkFor, { redirecting, evil }) {
      const { httpClient } = await networkFor(base({ baseUrl: redirecting.origin })).hub(`${redirecting.origin}/svc-monitoring/hub`);
      await expect(httpClient.post(`${redirecting.origin}/svc-monitoring/hub/negotiate?negotiateVersion=1`, { headers: { Authorization: 'Bearer secret-token' }, content: '' })).rejects.toThrow(/redirect to .*\/collect\/svc-monitoring\/hub\/negotiate/);
      expect(evil.seen).toEqual([]);
    },
  },
  {
    rule: 'a negotiate answer that sends the client to another origin is refused (the token never goes there)',
    async check(networkFor, { host, evil }) {
      const { httpClient } = await networkFor(base({ baseUrl: host.origin })).hub(`${host.origin}/svc-monitoring/hub`);
      await expect(httpClient.post(`${host.origin}/svc-monitoring/hub/negotiate?negotiateVersion=1`, { headers: { Authorization: 'Bearer secret-token' }, content: '' })).rejects.toThrow(
        `The hub's negotiate answer sends the console to ${evil.origin}, not to this environment's own address`,
      );
      expect(host.seen.at(-1)).toMatchObject({ path: '/svc-monitoring/hub/negotiate' });
      expect(evil.seen).toEqual([]);
    },
  },
  {
    rule: 'trust: "allow self-signed" on a production environment (a hand-edited file) is refused before any request',
    async check(networkFor, { host }) {
      const before = host.seen.length;
      const network = networkFor(base({ name: 'Prod', isProduction: true, baseUrl: host.origin.replace('http:', 'https:'), allowSelfSigned: true }));
      expect((await outcomeOf(network, host.origin, '/config')).message).toMatch(/allowSelfSigned: not allowed for a production environment/);
      await expect(network.hub(`${host.origin}/svc-monitoring/hub`)).rejects.toThrow(/not allowed for a production environment/);
      expect(host.seen.length).toBe(before);
    },
  },
  {
    rule: 'trust: a CA certificate file that cannot be read refuses the environment, naming the file',
    async check(networkFor, { host, dir }) {
      const before = host.seen.length;
      const missing = join(dir, 'no-such-ca.pem');
      const network = networkFor(base({ baseUrl: host.origin.replace('http:', 'https:'), caCertificatePath: missing }));
      expect((await outcomeOf(network, host.origin, '/config')).message).toContain(missing);
      expect(host.seen.length).toBe(before);
    },
  },
];

describe('the network rules, on both stacks (one table of cases)', () => {
  const hosts = {} as Hosts;
  let electronFor: (environment: Environment) => EnvironmentNetwork;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    hosts.evil = await recordingServer((_path, res) => json(res, 200, { signalRHubPath: '/x' }));
    hosts.redirecting = await recordingServer((path, res) => res.writeHead(302, { location: `${hosts.evil.origin}/collect${path}` }).end());
    hosts.host = await recordingServer((path, res) => {
      if (path === '/svc-monitoring/api/config') return json(res, 200, { signalRHubPath: '/svc-monitoring/hub', requireAuthentication: true, managementEnabled: false, eventDebounceMs: 0 });
      if (path === '/svc-monitoring/hub/negotiate') return json(res, 200, { url: `${hosts.evil.origin}/client/?hub=svc`, negotiateVersion: 0 });
      json(res, 404, { title: 'Not Found', status: 404 });
    }, '0.0.0.0');
    const tmp = await createTempDir('svc-network-rules-');
    hosts.dir = tmp.dir;
    cleanup = tmp.cleanup;
    electronFor = electronNetwork(createRecordingElectron(tmp.dir, process.cwd()).electron as unknown as ElectronNetworkApi);
  });
  afterAll(async () => {
    await hosts.host?.close();
    await hosts.redirecting?.close();
    await hosts.evil?.close();
    await cleanup?.();
  });

  for (const [stack, networkFor] of [
    ['Node', (e: Environment) => nodeNetwork(e)],
    ["Electron's (net.request)", (e: Environment) => electronFor(e)],
  ] as const) {
    describe(`${stack} stack`, () => {
      for (const { rule, check } of RULES) it(rule, () => check(networkFor, hosts));
    });
  }
});
