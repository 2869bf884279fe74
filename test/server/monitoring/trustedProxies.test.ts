// @backends sqlite — reads no stored data: HTTP, authentication, network and hub transport behaviour, the same over any store.
import { describe, expect, it } from 'vitest';
import { CLIENT, OTHER_CLIENT, PROXY, httpFrom, rawUpgrade, serveWithHub } from '../../fixtures/server/fromAddress.js';
import type { MonitoringOptions } from '../../../server/src/monitoring/options.js';
import { withServed } from '../../fixtures/server/servedMonitoring.js';

const xff = (value: string) => ({ 'x-forwarded-for': value });
const badLogin = { username: 'admin', password: 'wrong' };

describe('trusted proxies: X-Forwarded-For is read only from them', () => {
  // The proxy's own address is allowed too: a request it forwards with an unreadable header must
  // not fall back to it.
  const options = (): MonitoringOptions => ({ trustedProxies: [PROXY], allowedIpAddresses: [CLIENT, PROXY, '198.51.100.0/24'], loginRateLimit: false });

  it('a direct client is its socket address, whatever header it sends', async () => {
    await withServed(options(), async (s) => {
      // An allowed client that sends a foreign address is still let in...
      expect((await httpFrom(CLIENT, `${s.api}/config`, { headers: xff('192.0.2.77') })).status).toBe(200);
      // ...and a client outside the list cannot get in by naming an allowed address.
      const forged = await httpFrom(OTHER_CLIENT, `${s.api}/config`, { headers: xff(CLIENT) });
      expect(forged.status).toBe(403);
      expect(forged.headers['content-type']).toMatch(/problem\+json/);
      expect((await httpFrom(OTHER_CLIENT, `${s.api}/config`, { headers: xff('198.51.100.7') })).status).toBe(403);
    });
  });

  it('through the proxy, the client is the right-most address that is not a trusted proxy', async () => {
    await withServed(options(), async (s) => {
      expect((await httpFrom(PROXY, `${s.api}/config`, { headers: xff('198.51.100.7') })).status).toBe(200);
      expect((await httpFrom(PROXY, `${s.api}/config`, { headers: xff('192.0.2.1') })).status).toBe(403);
      // The client wrote an allowed address first; the proxy appended the real one.
      expect((await httpFrom(PROXY, `${s.api}/config`, { headers: xff('198.51.100.7, 192.0.2.1') })).status).toBe(403);
      // A chain of trusted proxies is skipped; what the client wrote to the left is never read.
      expect((await httpFrom(PROXY, `${s.api}/config`, { headers: xff('not-read, 198.51.100.7, 127.0.0.2') })).status).toBe(200);
      expect((await httpFrom(PROXY, `${s.api}/config`, { headers: xff('[2001:db8::1]:443, 198.51.100.9:8080') })).status).toBe(200);
    });
  });

  it('an empty or unreadable X-Forwarded-For from a trusted proxy is refused, never taken as the proxy itself', async () => {
    await withServed(options(), async (s) => {
      for (const header of ['', ' ', 'garbage', '198.51.100.7, garbage', '198.51.100.7,', 'unknown']) {
        const r = await httpFrom(PROXY, `${s.api}/config`, { headers: xff(header) });
        expect(r.status, JSON.stringify(header)).toBe(400);
        expect(r.body.detail, JSON.stringify(header)).toMatch(/X-Forwarded-For/);
      }
      // Without the header, the proxy's request is its own (a local client on the proxy host).
      expect((await httpFrom(PROXY, `${s.api}/config`)).status).toBe(200);
    });
  });

  it('the hub applies the same address: negotiate and WebSocket upgrade', async () => {
    const s = await serveWithHub({ ...options(), enableAuthentication: false });
    try {
      expect((await httpFrom(CLIENT, `${s.base}/hub/negotiate?negotiateVersion=1`, { method: 'POST' })).status).toBe(200);
      expect((await httpFrom(OTHER_CLIENT, `${s.base}/hub/negotiate?negotiateVersion=1`, { method: 'POST', headers: xff(CLIENT) })).status).toBe(403);
      expect((await httpFrom(PROXY, `${s.base}/hub/negotiate?negotiateVersion=1`, { method: 'POST', headers: xff('198.51.100.7, 192.0.2.1') })).status).toBe(403);
      expect((await httpFrom(PROXY, `${s.base}/hub/negotiate?negotiateVersion=1`, { method: 'POST', headers: xff('garbage') })).status).toBe(400);
      const refused = await rawUpgrade(OTHER_CLIENT, s.port, '/svc-monitoring/hub', xff(CLIENT));
      expect(refused.status).toBe(403);
      expect(refused.closedByServer).toBe(true);
      const viaProxy = await rawUpgrade(PROXY, s.port, '/svc-monitoring/hub', xff('192.0.2.1'));
      expect(viaProxy.status).toBe(403);
      expect((await rawUpgrade(PROXY, s.port, '/svc-monitoring/hub', xff('198.51.100.7'))).status).toBe(101);
    } finally {
      await s.close();
    }
  });

  it('by default only loopback is a trusted proxy; trustForwardedFor=false trusts none', async () => {
    await withServed({ allowedIpAddresses: ['198.51.100.7'] }, async (s) => {
      // 127.0.0.3 is loopback: its header is believed (a reverse proxy on the same host).
      expect((await httpFrom(CLIENT, `${s.api}/config`, { headers: xff('198.51.100.7') })).status).toBe(200);
      expect((await httpFrom(CLIENT, `${s.api}/config`, { headers: xff('198.51.100.8') })).status).toBe(403);
    });
    await withServed({ allowedIpAddresses: [PROXY], trustedProxies: [PROXY], trustForwardedFor: false }, async (s) => {
      expect((await httpFrom(PROXY, `${s.api}/config`, { headers: xff('198.51.100.7') })).status).toBe(200);
      expect((await httpFrom(PROXY, `${s.api}/config`, { headers: xff('garbage') })).status).toBe(200);
    });
  });
});

describe('login rate limit: keyed by the client address, memory bounded', () => {
  it('a direct client forging a new X-Forwarded-For on each attempt is still limited', async () => {
    await withServed({ trustedProxies: [PROXY], loginRateLimit: { limit: 3, windowMs: 60_000 } }, async (s) => {
      const statuses: number[] = [];
      for (let i = 1; i <= 6; i++) {
        statuses.push((await httpFrom(CLIENT, `${s.api}/auth/login`, { body: badLogin, headers: xff(`192.0.2.${i}`) })).status);
      }
      expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
      // Another client keeps its own budget.
      expect((await httpFrom(OTHER_CLIENT, `${s.api}/auth/login`, { body: badLogin })).status).toBe(401);
    });
  });

  it('behind the proxy, each forwarded client has its own budget; the log names the forwarded client once', async () => {
    const warnings: string[] = [];
    const logger = { info: () => undefined, warn: (m: string) => warnings.push(m) };
    await withServed({ trustedProxies: [PROXY], loginRateLimit: { limit: 2, windowMs: 60_000 }, logger }, async (s) => {
      const via = (client: string) => httpFrom(PROXY, `${s.api}/auth/login`, { body: badLogin, headers: xff(client) });
      expect([(await via('198.51.100.1')).status, (await via('198.51.100.1')).status, (await via('198.51.100.1')).status]).toEqual([401, 401, 429]);
      expect((await via('198.51.100.2')).status).toBe(401);
      const limited = await via('192.0.2.200, 198.51.100.1');
      expect(limited.status).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(warnings.filter((w) => /login rate limit/.test(w))).toEqual([expect.stringContaining('client 198.51.100.1 ')]);
    });
  });

  it('tracks at most maxClients addresses: the least recently seen is forgotten', async () => {
    await withServed({ trustedProxies: [PROXY], loginRateLimit: { limit: 1, windowMs: 60_000, maxClients: 2 } }, async (s) => {
      const via = async (client: string) => (await httpFrom(PROXY, `${s.api}/auth/login`, { body: badLogin, headers: xff(client) })).status;
      expect(await via('198.51.100.1')).toBe(401);
      expect(await via('198.51.100.1')).toBe(429);
      expect(await via('198.51.100.2')).toBe(401);
      expect(await via('198.51.100.2')).toBe(429);
      // A third client pushes out the least recently seen (…1), which starts afresh; …2 stays limited.
      expect(await via('198.51.100.3')).toBe(401);
      expect(await via('198.51.100.2')).toBe(429);
      expect(await via('198.51.100.1')).toBe(401);
    });
  });
});
