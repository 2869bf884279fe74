import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsole, type RecordingConsole } from '../fixtures/main/consoleSuite.js';
import { createTempDir } from '../fixtures/main/tempDir.js';
import { waitFor } from '../fixtures/waitFor.js';

/**
 * A host that answers /config (no authentication needed) and then answers nothing else: its
 * hub's negotiate is accepted and never answered (a host that hangs), and its task list fails.
 */
async function silentHubHost() {
  const held: Array<import('node:http').ServerResponse> = [];
  let taskLists = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/svc-monitoring/api/config') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiBasePath: '/svc-monitoring/api', uiBasePath: '/svc-monitoring', signalRHubPath: '/svc-monitoring/hub', requireAuthentication: false, uiEnabled: false, managementEnabled: false, eventDebounceMs: 0, passwordLoginEnabled: true }));
    } else if (path.startsWith('/svc-monitoring/api/')) {
      // The back-fill's task list: the connection drops.
      taskLists++;
      req.socket.destroy();
    } else held.push(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    negotiating: () => held.length,
    taskLists: () => taskLists,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describe('an environment whose host hangs, and a back-fill that fails', () => {
  let dir: { dir: string; cleanup: () => Promise<void> };
  let host: Awaited<ReturnType<typeof silentHubHost>>;
  let recording: RecordingConsole;
  const logged: string[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    dir = await createTempDir();
    host = await silentHubHost();
    recording = await createConsole(dir.dir, { log: (level, message) => logged.push(`${level}: ${message}`) });
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await recording?.services.dispose({ timeoutMs: 2_000 });
    await host?.close();
    await dir?.cleanup();
  });

  it('removing it returns within the bound although its live connection never answers, and says what was cut short', async () => {
    const { services } = recording;
    const env = await services.addEnvironment({ name: 'Hanging', baseUrl: host.baseUrl, colour: '#2563eb', isProduction: false });
    await waitFor(() => host.negotiating() > 0, 15_000, 'the hub negotiating with the silent host', 25);
    const started = Date.now();
    await services.removeEnvironment(env.id);
    // The bound is 5 s; the hub client's own negotiate timeout is 100 s.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(services.environments()).toEqual([]);
    expect(logged.some((l) => /Hanging: stopping its live connection did not finish within/.test(l))).toBe(true);
  }, 60_000);

  it('a back-fill that fails after a connect is logged, never an unhandled rejection', async () => {
    const { services } = recording;
    const env = await services.addEnvironment({ name: 'Flaky', baseUrl: host.baseUrl, colour: '#2563eb', isProduction: false });
    // The hub state "connected" starts the back-fill; its task list fails.
    (services.hub as unknown as { options: { onState(id: string, state: string): void } }).options.onState(env.id, 'connected');
    await waitFor(() => host.taskLists() > 0, 15_000, "the back-fill's task list", 25);
    await new Promise((r) => setTimeout(r, 500));
    expect(unhandled).toEqual([]);
    await waitFor(() => logged.some((l) => /Flaky: back-fill failed: .*ECONNRESET|socket hang up/.test(l)), 15_000, 'the logged back-fill failure', 25);
    await services.removeEnvironment(env.id);
  }, 60_000);
});
