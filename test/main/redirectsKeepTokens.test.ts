import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/shared/environment.js';
import { electronNetwork, type ElectronNetworkApi } from '../../src/main/network/electronNetwork.js';
import type { EnvironmentNetwork } from '../../src/main/network/environmentNetwork.js';
import { nodeNetwork } from '../../src/main/network/nodeNetwork.js';
import { createHttpClient, httpError, networkError } from '../../src/main/session/httpClient.js';
import { createRecordingElectron } from '../fixtures/main/recordingElectron.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

/** A server that records each request's path and Authorization header; `answer` replies. */
async function recordingServer(answer: (path: string, res: import('node:http').ServerResponse) => void) {
  const seen: Array<{ path: string; authorization?: string }> = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    const path = (req.url ?? '/').split('?')[0]!;
    seen.push({ path, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    answer(path, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, seen, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

describe("an environment's redirect never carries its token to another address", () => {
  let evil: Awaited<ReturnType<typeof recordingServer>>;
  let host: Awaited<ReturnType<typeof recordingServer>>;
  let electronFor: (environment: Environment) => EnvironmentNetwork;
  let cleanup: () => Promise<void>;
  const env = (): Environment => ({ id: 'lab', name: 'Lab', baseUrl: host.origin, colour: '#2563eb', isProduction: false });

  beforeAll(async () => {
    evil = await recordingServer((_path, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"signalRHubPath":"/x"}'));
    // Every path of the environment's host redirects to the other server (a moved host, a login page, an attacker).
    host = await recordingServer((path, res) => res.writeHead(302, { location: `${evil.origin}/collect${path}` }).end());
    const tmp = await createTempDir('svc-redirects-');
    cleanup = tmp.cleanup;
    electronFor = electronNetwork(createRecordingElectron(tmp.dir, process.cwd()).electron as unknown as ElectronNetworkApi);
  });
  afterAll(async () => {
    await host.close();
    await evil.close();
    await cleanup();
  });

  for (const [stack, networkFor] of [
    ['Node', (e: Environment) => nodeNetwork(e)],
    ["Electron's (net.request)", (e: Environment) => electronFor(e)],
  ] as const) {
    it(`an API request on ${stack} stack fails with the redirect named; nothing reaches the other server`, async () => {
      const http = createHttpClient(`${host.origin}/svc-monitoring/api`, 5_000, networkFor(env()).http);
      let message = '';
      try {
        const response = await http.get('/tasks', { headers: { Authorization: 'Bearer secret-token' } });
        message = httpError(response, 'GET /tasks').message;
      } catch (err) {
        message = networkError(err, 'GET /tasks').message;
      }
      expect(message).toContain(`the host answered with a redirect to ${evil.origin}/collect/svc-monitoring/api/tasks`);
      expect(message).toContain('the console follows no redirects');
      expect(host.seen.at(-1)).toEqual({ path: '/svc-monitoring/api/tasks', authorization: 'Bearer secret-token' });
      expect(evil.seen).toEqual([]);
    });

    it(`the hub's HTTP (negotiate) on ${stack} stack follows no redirect either`, async () => {
      const { httpClient } = await networkFor(env()).hub(`${host.origin}/svc-monitoring/hub`);
      await expect(httpClient.post(`${host.origin}/svc-monitoring/hub/negotiate?negotiateVersion=1`, { headers: { Authorization: 'Bearer secret-token' }, content: '' })).rejects.toThrow(/redirect to .*\/collect\/svc-monitoring\/hub\/negotiate/);
      expect(evil.seen).toEqual([]);
    });
  }
});
