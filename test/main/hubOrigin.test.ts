import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { createConsole } from '../fixtures/main/consoleSuite.js';
import { waitFor } from '../fixtures/waitFor.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

/** An HTTP server that records each request's path and Authorization header; `answer` replies. */
async function recordingServer(answer: (path: string, reply: (status: number, body: unknown) => void) => void) {
  const seen: Array<{ path: string; authorization?: string }> = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      seen.push({ path, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
      answer(path, (status, body) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, seen, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

/** A monitoring host whose /config names `hubPath` (a path, or an absolute URL) and whose login issues "secret-token". */
function monitoringHost(hubPath: () => string) {
  return recordingServer((path, reply) => {
    if (path === '/svc-monitoring/api/config') return reply(200, { signalRHubPath: hubPath(), requireAuthentication: true, managementEnabled: false, eventDebounceMs: 0 });
    if (path === '/svc-monitoring/api/auth/login') return reply(200, { token: 'secret-token', expiresAt: new Date(Date.now() + 3_600_000).toISOString(), username: 'ops', canManage: false });
    reply(404, { title: 'Not Found', status: 404 });
  });
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function consoleWith(hubPath: () => string) {
  const { dir, cleanup } = await createTempDir();
  const host = await monitoringHost(hubPath);
  const recording = await createConsole(dir, { safeStorage: aesSafeStorage('gnome_libsecret'), hub: { reconnectDelaysMs: [], retryAfterFailureMs: 60_000 } });
  cleanups.push(cleanup, host.close, () => recording.services.dispose());
  const env = await recording.services.addEnvironment({ name: 'Lab', baseUrl: host.origin, colour: '#2563eb', isProduction: false });
  await recording.services.requireSession(env.id).loginWithPassword('ops', 'pw', false);
  return { services: recording.services, env, host };
}

describe('the hub address from /config', () => {
  it('an absolute signalRHubPath at another origin is refused: no request (and no bearer token) goes there, the status says why', async () => {
    const evil = await recordingServer((_path, reply) => reply(200, {}));
    cleanups.push(evil.close);
    const { services, env } = await consoleWith(() => `${evil.origin}/collect`);
    await services.hub.whenState(env.id, 'error');
    expect(services.hub.state(env.id).message).toBe(`The service's /config names a live hub at ${evil.origin}, not under this environment's own address: the console does not connect there`);
    await new Promise((r) => setTimeout(r, 200));
    expect(evil.seen).toEqual([]);
  });

  it('a negotiate answer that sends the client to another origin is refused: the token never goes there', async () => {
    const evil = await recordingServer((_path, reply) => reply(200, { connectionId: 'x', availableTransports: [] }));
    cleanups.push(evil.close);
    const { dir, cleanup } = await createTempDir();
    // Its /config is honest; its negotiate answer redirects the client (as Azure SignalR does), with no token of its own.
    const host = await recordingServer((path, reply) => {
      if (path === '/svc-monitoring/api/config') return reply(200, { signalRHubPath: '/svc-monitoring/hub', requireAuthentication: true, managementEnabled: false, eventDebounceMs: 0 });
      if (path === '/svc-monitoring/api/auth/login') return reply(200, { token: 'secret-token', expiresAt: new Date(Date.now() + 3_600_000).toISOString(), username: 'ops', canManage: false });
      if (path === '/svc-monitoring/hub/negotiate') return reply(200, { url: `${evil.origin}/client/?hub=svc`, negotiateVersion: 0 });
      reply(404, { title: 'Not Found', status: 404 });
    });
    const recording = await createConsole(dir, { safeStorage: aesSafeStorage('gnome_libsecret'), hub: { reconnectDelaysMs: [], retryAfterFailureMs: 60_000 } });
    cleanups.push(cleanup, host.close, () => recording.services.dispose());
    const env = await recording.services.addEnvironment({ name: 'Lab', baseUrl: host.origin, colour: '#2563eb', isProduction: false });
    await recording.services.requireSession(env.id).loginWithPassword('ops', 'pw', false);
    await waitFor(() => host.seen.some((r) => r.path === '/svc-monitoring/hub/negotiate'), 10_000, 'the negotiate request', 25);
    await recording.services.hub.whenState(env.id, 'error');
    expect(recording.services.hub.state(env.id).message).toContain(`sends the console to ${evil.origin}, not to this environment's own address`);
    await new Promise((r) => setTimeout(r, 200));
    expect(evil.seen).toEqual([]);
  });

  it('an absolute signalRHubPath under the environment\'s own origin is used', async () => {
    let origin = '';
    const { services, env, host } = await consoleWith(() => `${origin}/custom/hub`);
    origin = host.origin;
    await services.requireSession(env.id).start();
    expect(services.session(env.id)!.hubUrl()).toBe(`${host.origin}/custom/hub`);
    // The host has no hub there: the client asks it (negotiate), with the token, and nowhere else.
    await waitFor(() => host.seen.some((r) => r.path === '/custom/hub/negotiate'), 10_000, 'the negotiate request', 25);
    expect(host.seen.find((r) => r.path === '/custom/hub/negotiate')?.authorization).toBe('Bearer secret-token');
  });
});
