import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HubManager } from '../../src/main/watch/HubManager.js';
import { nodeNetwork } from '../../src/main/network/nodeNetwork.js';
import type { EnvironmentSession } from '../../src/main/session/EnvironmentSession.js';
import type { AuthState, SessionView } from '../../src/shared/session.js';
import { createConsole } from '../fixtures/main/consoleSuite.js';
import { waitFor } from '../fixtures/waitFor.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

/** A host that records every request path and answers each with `status`. */
async function hubHost(status: number) {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push((req.url ?? '/').split('?')[0]!);
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/svc-monitoring/hub`;
  return { url, seen, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

/**
 * The part of a session the hub manager uses, signed in, whose transport is chosen only when
 * the test says so (a slow proxy lookup or keychain), and whose renewal does what `renew` does.
 */
function slowSession(id: string, hubUrl: string, renew: () => Promise<boolean> = async () => false) {
  let auth: AuthState = 'authenticated';
  const listeners = new Set<(view: SessionView) => void>();
  const view = (): SessionView => ({ environmentId: id, auth, canManage: false, managementEnabled: false, requireAuthentication: true, hasRememberedPassword: false });
  let choose: () => void = () => undefined;
  const chosen = new Promise<void>((r) => (choose = r));
  const network = nodeNetwork({ id, name: id, baseUrl: hubUrl, colour: '#000000', isProduction: false });
  const session = {
    environmentId: id,
    onChange: (l: (view: SessionView) => void) => (listeners.add(l), () => listeners.delete(l)),
    view,
    hubUrl: () => hubUrl,
    hubTransport: async (url: string) => (await chosen, network.hub(url)),
    freshToken: async () => 'token',
    handleRejected: renew,
  } as unknown as EnvironmentSession;
  return {
    session,
    chooseTransport: () => choose(),
    signOut: () => {
      auth = 'logged-out';
      for (const l of listeners) l(view());
    },
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe('hub start race: the environment changes while its transport is chosen', () => {
  it('an environment removed meanwhile gets no connection (no request reaches its host)', async () => {
    const host = await hubHost(404);
    const hub = new HubManager({ onEvent: () => undefined, reconnectDelaysMs: [] });
    cleanups.push(host.close, () => hub.stopAll());
    const s = slowSession('lab', host.url);
    hub.watch(s.session);
    await hub.unwatch('lab');
    s.chooseTransport();
    await new Promise((r) => setTimeout(r, 300));
    expect(host.seen).toEqual([]);
  });

  it('a session signed out meanwhile gets no connection', async () => {
    const host = await hubHost(404);
    const states: string[] = [];
    const hub = new HubManager({ onEvent: () => undefined, onState: (_id, state) => states.push(state), reconnectDelaysMs: [] });
    cleanups.push(host.close, () => hub.stopAll());
    const s = slowSession('lab', host.url);
    hub.watch(s.session);
    s.signOut();
    s.chooseTransport();
    await new Promise((r) => setTimeout(r, 300));
    expect(host.seen).toEqual([]);
    expect(hub.state('lab').state).toBe('idle');
    expect(states).not.toContain('connecting');
  });

  it('a token renewal that fails outright (host gone) is an error state with the reason, not an unhandled rejection', async () => {
    const host = await hubHost(401);
    const logged: string[] = [];
    const hub = new HubManager({ onEvent: () => undefined, reconnectDelaysMs: [], retryAfterFailureMs: 600_000, log: (_id, level, message) => logged.push(`${level} ${message}`) });
    cleanups.push(host.close, () => hub.stopAll());
    const s = slowSession('lab', host.url, () => Promise.reject(new Error('Cannot reach the host')));
    hub.watch(s.session);
    s.chooseTransport();
    await waitFor(() => hub.state('lab').state === 'error', 10_000, 'the error state', 25);
    expect(hub.state('lab').message).toBe('Renewing the session failed: Cannot reach the host');
    expect(logged).toContain('error Renewing the session failed: Cannot reach the host');
  });
});

describe('session sync errors are not swallowed', () => {
  it('a removal whose clean-up fails rejects for the caller (the IPC answer) and is logged; the next change still syncs', async () => {
    const { dir, cleanup } = await createTempDir();
    const logged: string[] = [];
    const { services } = await createConsole(dir, { log: (level, message) => logged.push(`${level} ${message}`) });
    cleanups.push(cleanup, () => services.dispose());
    const a = await services.addEnvironment({ name: 'A', baseUrl: 'http://127.0.0.1:9', colour: '#2563eb', isProduction: false });
    const deleteSecret = services.vault.delete.bind(services.vault);
    services.vault.delete = () => Promise.reject(new Error('the keychain is locked'));
    await expect(services.removeEnvironment(a.id)).rejects.toThrow('the keychain is locked');
    expect(logged).toContain('error updating the sessions failed: the keychain is locked');
    services.vault.delete = deleteSecret;
    const b = await services.addEnvironment({ name: 'B', baseUrl: 'http://127.0.0.1:9', colour: '#2563eb', isProduction: false });
    expect(services.session(b.id)).toBeDefined();
  });
});
