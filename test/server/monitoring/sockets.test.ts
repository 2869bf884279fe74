// @backends sqlite — reads no stored data: HTTP, authentication, network and hub transport behaviour, the same over any store.
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { CLIENT, OTHER_CLIENT, httpFrom, rawUpgrade, serveWithHub } from '../../fixtures/server/fromAddress.js';
import { withServed } from '../../fixtures/server/servedMonitoring.js';

describe('WebSocket upgrades: answered and closed at once', () => {
  it('an upgrade on any path but the hub gets 404 and the socket is closed', async () => {
    const s = await serveWithHub({ enableAuthentication: false });
    try {
      for (const path of ['/svc-monitoring/api/config', '/anything', '/svc-monitoring/hub/negotiate', '/svc-monitoring', '/']) {
        const r = await rawUpgrade(CLIENT, s.port, path);
        expect(r.status, path).toBe(404);
        expect(r.closedByServer, path).toBe(true);
      }
    } finally {
      await s.close();
    }
  });

  it('a standalone registration (no hub) answers upgrades too, the hub path included', async () => {
    await withServed({}, async (s) => {
      const port = Number(new URL(s.baseUrl).port);
      for (const path of ['/svc-monitoring/hub', '/anything']) {
        const r = await rawUpgrade(CLIENT, port, path);
        expect(r.status, path).toBe(404);
        expect(r.closedByServer, path).toBe(true);
      }
    });
  });

  it('on the hub path, a client outside the allow-list gets 403 and is closed; an unauthenticated one 401', async () => {
    const s = await serveWithHub({ allowedIpAddresses: [CLIENT] });
    try {
      const outside = await rawUpgrade(OTHER_CLIENT, s.port, '/svc-monitoring/hub');
      expect(outside.status).toBe(403);
      expect(outside.closedByServer).toBe(true);
      const anonymous = await rawUpgrade(CLIENT, s.port, '/svc-monitoring/hub');
      expect(anonymous.status).toBe(401);
      expect(anonymous.closedByServer).toBe(true);
    } finally {
      await s.close();
    }
  });
});

describe('hub connection limits', () => {
  it('per client address: 429 beyond the limit, a slot frees when a connection closes; others unaffected', async () => {
    const s = await serveWithHub({ enableAuthentication: false, hubMaxConnectionsPerClient: 2, hubMaxConnections: 10 });
    try {
      const negotiate = (from: string) => httpFrom(from, `${s.base}/hub/negotiate?negotiateVersion=1`, { method: 'POST' });
      const first = await negotiate(CLIENT);
      expect(first.status).toBe(200);
      expect((await negotiate(CLIENT)).status).toBe(200);
      const third = await negotiate(CLIENT);
      expect(third.status).toBe(429);
      expect(third.body.detail).toMatch(/limit/);
      // A skipNegotiation WebSocket counts the same.
      expect((await rawUpgrade(CLIENT, s.port, '/svc-monitoring/hub')).status).toBe(429);
      expect((await negotiate(OTHER_CLIENT)).status).toBe(200);
      // Closing one (long polling: first poll, then DELETE) frees its slot.
      expect((await httpFrom(CLIENT, `${s.base}/hub?id=${first.body.connectionToken}`)).status).toBe(200);
      const del = await httpFrom(CLIENT, `${s.base}/hub?id=${first.body.connectionToken}`, { method: 'DELETE' });
      expect(del.status).toBe(202);
      expect((await negotiate(CLIENT)).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('in total: 503 with Retry-After beyond the limit', async () => {
    const s = await serveWithHub({ enableAuthentication: false, hubMaxConnectionsPerClient: 5, hubMaxConnections: 2 });
    try {
      const ws = new WebSocket(`ws://127.0.0.1:${s.port}/svc-monitoring/hub`, { localAddress: CLIENT });
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      expect((await httpFrom(OTHER_CLIENT, `${s.base}/hub/negotiate`, { method: 'POST' })).status).toBe(200);
      const full = await httpFrom('127.0.0.5', `${s.base}/hub/negotiate`, { method: 'POST' });
      expect(full.status).toBe(503);
      expect(full.headers['retry-after']).toBe('30');
      expect(full.body.detail).toMatch(/limit of 2 connections/);
      const upgrade = await rawUpgrade('127.0.0.5', s.port, '/svc-monitoring/hub');
      expect(upgrade.status).toBe(503);
      expect(upgrade.closedByServer).toBe(true);
      ws.close();
    } finally {
      await s.close();
    }
  });

  it('bad limit options fail at startup naming the option', async () => {
    await expect(serveWithHub({ hubMaxConnections: 0 })).rejects.toThrow(/hubMaxConnections/);
    await expect(serveWithHub({ hubMaxConnectionsPerClient: 1.5 })).rejects.toThrow(/hubMaxConnectionsPerClient/);
  });
});
