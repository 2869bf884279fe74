import { describe, expect, it } from 'vitest';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { useConsoleSuite } from '../fixtures/main/consoleSuite.js';
import { waitFor } from '../fixtures/waitFor.js';
import { startFullHost, svcEvent } from '../fixtures/main/fullHost.js';

/**
 * A hub client that does not reconnect on its own (no reconnect delays) gets the hub's Close
 * "Token expired" as a close, not a reconnect: the console reads it as it reads a failed start,
 * renews the token with the remembered password and starts the hub again, instead of showing an
 * error and waiting for the next retry.
 */
describe('HubManager: a close for an expired token renews and reconnects', () => {
  const suite = useConsoleSuite({
    start: async (dir) => ({
      short: await startFullHost(dir, { username: 'ops', password: 'short-pw', jwtExpirationHours: 2 / 3600 }),
    }),
    userData: 'ud',
    console: { safeStorage: aesSafeStorage('gnome_libsecret'), hub: { reconnectDelaysMs: [], retryAfterFailureMs: 60_000 } },
  });

  it('renews the token and is connected again, never in error, and events keep arriving', async () => {
    const id = (await suite.services.addEnvironment({ name: 'Short', baseUrl: suite.hosts.short.baseUrl, colour: '#16a34a', isProduction: false })).id;
    await suite.services.requireSession(id).loginWithPassword('ops', 'short-pw', true);
    await suite.services.hub.whenState(id, 'connected');
    const states: string[] = [];
    suite.services.onEvent((e) => {
      if (e.type !== 'status' || e.environment.id !== id) return;
      states.push(`${e.environment.hub.state}:${e.environment.hub.message ?? ''}`);
    });
    const firstExpiry = suite.services.requireSession(id).view().expiresAt;
    await waitFor(() => states.includes('reconnecting:Token expired') && suite.services.hub.state(id).state === 'connected', 10_000, 'the hub connected again after the token expired', 25);
    expect(states.filter((s) => s.startsWith('error:'))).toEqual([]);
    expect(suite.services.requireSession(id).view().expiresAt).not.toBe(firstExpiry);
    const before = suite.events.length;
    suite.hosts.short.emit(svcEvent('Completed'));
    await waitFor(() => suite.events.slice(before).some((r) => r.env === id), 10_000, 'an event after the renewal', 25);
  });
});
