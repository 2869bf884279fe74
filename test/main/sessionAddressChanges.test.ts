import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { createConsole, type RecordingConsole } from '../fixtures/main/consoleSuite.js';
import { waitFor } from '../fixtures/waitFor.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

interface SeenRequest {
  method: string;
  path: string;
  authorization?: string;
  body: string;
}

/**
 * A host that answers the monitoring API under an optional path prefix, records every
 * request, and can hold its login answer until the test releases it.
 */
async function fakeHost(options: { prefix?: string; token: string; holdLogin?: boolean }) {
  const seen: SeenRequest[] = [];
  let release: () => void = () => undefined;
  const released = new Promise<void>((r) => (release = r));
  const prefix = options.prefix ?? '';
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      seen.push({ method: req.method ?? '', path, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}), body });
      const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (path === `${prefix}/svc-monitoring/api/config`) {
        return json(200, { signalRHubPath: '/svc-monitoring/hub', requireAuthentication: true, managementEnabled: false, eventDebounceMs: 0 });
      }
      if (path === `${prefix}/svc-monitoring/api/auth/login`) {
        const answer = () => json(200, { token: options.token, expiresAt: new Date(Date.now() + 3_600_000).toISOString(), username: 'ops', canManage: false });
        if (options.holdLogin) void released.then(answer);
        else answer();
        return;
      }
      if (path === `${prefix}/svc-monitoring/api/auth/validate`) return json(401, { title: 'Unauthorized', status: 401 });
      json(404, { title: 'Not Found', status: 404 });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`,
    seen,
    release,
    close: () =>
      new Promise<void>((r) => {
        release();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('sessions when an environment address changes or has a path prefix', () => {
  const cleanups: Array<() => Promise<void>> = [];
  let recording: RecordingConsole | undefined;
  afterEach(async () => {
    await recording?.services.dispose();
    recording = undefined;
    while (cleanups.length > 0) await cleanups.pop()!();
  });
  afterAll(async () => {
    while (cleanups.length > 0) await cleanups.pop()!();
  });

  async function consoleIn(): Promise<RecordingConsole> {
    const dir = await createTempDir();
    cleanups.push(dir.cleanup);
    recording = await createConsole(dir.dir, { safeStorage: aesSafeStorage('gnome_libsecret'), hub: { retryAfterFailureMs: 60_000 } });
    return recording;
  }

  it('keeps the base path of the environment in the hub address', async () => {
    const host = await fakeHost({ prefix: '/app', token: 'prefixed-token' });
    cleanups.push(host.close);
    const { services } = await consoleIn();
    const env = await services.addEnvironment({ name: 'Behind a proxy', baseUrl: `${host.baseUrl}/`, colour: '#123456', isProduction: false });
    expect(env.baseUrl).toBe(host.baseUrl);
    expect(services.requireSession(env.id).view()).toMatchObject({ auth: 'logged-out', hubPath: '/svc-monitoring/hub' });
    expect(services.session(env.id)!.hubUrl()).toBe(`${host.baseUrl}/svc-monitoring/hub`);
  });

  it('never sends a login answered by the old address to the new one (URL edited while the login is in flight)', async () => {
    const oldHost = await fakeHost({ token: 'token-from-old-host', holdLogin: true });
    const newHost = await fakeHost({ token: 'token-from-new-host' });
    cleanups.push(oldHost.close, newHost.close);
    const { services } = await consoleIn();
    const env = await services.addEnvironment({ name: 'Moving', baseUrl: oldHost.baseUrl, colour: '#123456', isProduction: true });
    const login = services.requireSession(env.id).loginWithPassword('ops', 'old-host-password', true);
    const outcome = login.then(
      (v) => ({ ok: true as const, v }),
      (e: Error & { code?: string }) => ({ ok: false as const, e }),
    );
    await waitFor(() => oldHost.seen.some((r) => r.path.endsWith('/auth/login')), 10_000, 'the login request at the old host', 25);
    await services.updateEnvironment(env.id, { baseUrl: newHost.baseUrl });
    oldHost.release();
    const result = await outcome;
    // The user is told the login did not apply, and the environment asks for a new one.
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.e.message).toMatch(/address of this environment changed during the login/i);
    expect(services.requireSession(env.id).view().auth).toBe('logged-out');
    expect(await services.vault.get(env.id)).toBeUndefined();
    // Whatever happens next (a start, a renewal), the new host never sees the old token or password.
    await services.requireSession(env.id).start();
    expect(newHost.seen.length).toBeGreaterThan(0);
    for (const r of newHost.seen) {
      expect(r.authorization ?? '').not.toContain('token-from-old-host');
      expect(r.body).not.toContain('token-from-old-host');
      expect(r.body).not.toContain('old-host-password');
    }
  });
});
