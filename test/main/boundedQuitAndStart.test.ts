import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CredentialVault } from '../../src/main/credentials/CredentialVault.js';
import type { KeytarLike } from '../../src/main/credentials/secretBackend.js';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { createConsole } from '../fixtures/main/consoleSuite.js';
import { createTempDir } from '../fixtures/main/tempDir.js';
import { waitFor } from '../fixtures/waitFor.js';

/** A host that accepts connections and never answers a byte (a hung proxy, a stopped VM). */
async function silentHost() {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.resume();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => sockets.size,
    close: () => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

describe('quit and start are bounded', () => {
  it('quit stops waiting for a host that never answers and says what it cut short', async () => {
    const { dir, cleanup } = await createTempDir();
    const host = await silentHost();
    cleanups.push(cleanup, host.close);
    const recording = await createConsole(dir, { safeStorage: aesSafeStorage('gnome_libsecret'), session: { timeoutMs: 60_000 } });
    // Adding the environment starts its session, whose first request (/config) now hangs.
    void recording.services.addEnvironment({ name: 'Hung', baseUrl: host.origin, colour: '#2563eb', isProduction: false }).catch(() => undefined);
    await waitFor(() => host.connections() > 0, 10_000, 'the request to the silent host', 25);
    const started = Date.now();
    const report = await recording.services.stopForQuit({ timeoutMs: 400 });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(report.cutShort.length).toBeGreaterThan(0);
    expect(report.cutShort.join(', ')).toMatch(/the environment sync|stopping the sessions/);
  });

  it('a keychain that never answers is not used after the probe limit: the vault falls back and says why', async () => {
    const { dir, cleanup } = await createTempDir();
    cleanups.push(cleanup);
    const never = () => new Promise<never>(() => undefined);
    const hung: KeytarLike = { getPassword: never, setPassword: never, deletePassword: never, findCredentials: never };
    const started = Date.now();
    const vault = await CredentialVault.open({ userDataDir: dir, loadKeytar: async () => hung, safeStorage: aesSafeStorage('gnome_libsecret'), probeTimeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(vault.status()).toMatchObject({ storage: 'encrypted-file', reason: expect.stringContaining('the OS keychain is not reachable (it did not answer within') });
    // The fallback works: a secret is kept and read back.
    await vault.update('env-1', { token: 't' });
    expect((await vault.get('env-1'))?.token).toBe('t');
  });
});
