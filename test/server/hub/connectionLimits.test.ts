// @backends sqlite — no store at all (test/fixtures/server/hubServer.ts): the hub transport alone.
import { describe, expect, it } from 'vitest';
import { httpFrom, rawUpgrade } from '../../fixtures/server/fromAddress.js';
import { signToken, startHubServer } from '../../fixtures/server/hubServer.js';

const negotiateFrom = (from: string, url: string, token: string) =>
  httpFrom(from, `${url}/negotiate?negotiateVersion=1`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });

describe('hub connection caps (createHub)', () => {
  it('per client (the socket address by default): 429 on negotiate and on a skipNegotiation upgrade', async () => {
    const s = await startHubServer({ maxConnectionsPerClient: 1 });
    const token = signToken();
    try {
      expect((await negotiateFrom('127.0.0.3', s.url, token)).status).toBe(200);
      const second = await negotiateFrom('127.0.0.3', s.url, token);
      expect(second.status).toBe(429);
      expect(second.headers['content-type']).toMatch(/problem\+json/);
      const upgrade = await rawUpgrade('127.0.0.3', s.port, '/svc-monitoring/hub', { Authorization: `Bearer ${token}` });
      expect(upgrade.status).toBe(429);
      expect(upgrade.closedByServer).toBe(true);
      expect((await negotiateFrom('127.0.0.4', s.url, token)).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('a host-given clientKey decides who is who; in total: 503', async () => {
    const s = await startHubServer({ clientKey: (req) => String(req.headers['x-client'] ?? 'anonymous'), maxConnectionsPerClient: 1, maxConnections: 2 });
    const token = signToken();
    const as = (client: string) => httpFrom('127.0.0.3', `${s.url}/negotiate`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'x-client': client } });
    try {
      expect((await as('a')).status).toBe(200);
      expect((await as('a')).status).toBe(429);
      expect((await as('b')).status).toBe(200);
      const full = await as('c');
      expect(full.status).toBe(503);
      expect(full.headers['retry-after']).toBe('30');
    } finally {
      await s.close();
    }
  });

  it('without caps, one address may hold many connections (hosts and benchmarks opt in)', async () => {
    const s = await startHubServer();
    const token = signToken();
    try {
      for (let i = 0; i < 30; i++) expect((await negotiateFrom('127.0.0.3', s.url, token)).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('bad caps fail at creation naming the option', async () => {
    await expect(startHubServer({ maxConnections: 0 })).rejects.toThrow(/maxConnections/);
    await expect(startHubServer({ maxConnectionsPerClient: -1 })).rejects.toThrow(/maxConnectionsPerClient/);
  });
});
