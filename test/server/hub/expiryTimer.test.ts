import { afterEach, describe, expect, it, vi } from 'vitest';
import { RawClient } from '../../fixtures/server/rawHubClient.js';
import { shortLivedToken, signToken, startHubServer } from '../../fixtures/server/hubServer.js';
import { waitFor } from '../../fixtures/waitFor.js';

describe('hub token expiries', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('arms one timer for the token expiries of many connections, not one per connection', async () => {
    const s = await startHubServer();
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const clients: RawClient[] = [];
    try {
      for (let i = 0; i < 20; i++) {
        const c = await RawClient.open(s.wsUrl, signToken({}, 600 + i));
        await c.handshake();
        clients.push(c);
      }
      // Nothing else in this process waits anywhere near ten minutes.
      const expiryTimers = spy.mock.calls.filter(([, ms]) => typeof ms === 'number' && ms > 300_000).length;
      expect(expiryTimers).toBe(1);
    } finally {
      spy.mockRestore();
      for (const c of clients) c.ws.close();
      await s.close();
    }
  });

  it('closes each connection at its own token exp, the others staying open', async () => {
    const s = await startHubServer();
    try {
      const long = await RawClient.open(s.wsUrl, signToken({}, 600));
      await long.handshake();
      const soon = await RawClient.open(s.wsUrl, shortLivedToken(3));
      await soon.handshake();
      const later = await RawClient.open(s.wsUrl, shortLivedToken(5));
      await later.handshake();
      expect(await soon.next((r) => r.type === 7, 10_000)).toEqual({ type: 7, error: 'Token expired', allowReconnect: true });
      expect(later.closed).toBe(false);
      expect(await later.next((r) => r.type === 7, 10_000)).toEqual({ type: 7, error: 'Token expired', allowReconnect: true });
      await waitFor(() => s.hub.connectionCount() === 1, 5_000, 'the two expired connections to drop');
      expect(long.closed).toBe(false);
      long.ws.close();
    } finally {
      await s.close();
    }
  });
});
