// @backends sqlite — reads no stored data: HTTP, authentication, network and hub transport behaviour, the same over any store.
import { describe, expect, it } from 'vitest';
import { IpAllowList } from '../../../server/src/monitoring/network/IpAllowList.js';
import { getJson, postJson, withServed, withServers } from '../../fixtures/server/servedMonitoring.js';

describe('IP allow-list', () => {
  it('matches IPv4, IPv6, CIDR ranges and IPv4-mapped IPv6', () => {
    const list = new IpAllowList(['10.0.0.0/8', '192.168.1.7', '2001:db8::/32', '::1', '::ffff:172.16.0.0/108']);
    expect(list.allows('10.200.3.4')).toBe(true);
    expect(list.allows('::ffff:10.1.1.1')).toBe(true);
    expect(list.allows('11.0.0.1')).toBe(false);
    expect(list.allows('192.168.1.7')).toBe(true);
    expect(list.allows('192.168.1.8')).toBe(false);
    expect(list.allows('2001:db8:1234::5')).toBe(true);
    expect(list.allows('2001:db9::1')).toBe(false);
    expect(list.allows('::1')).toBe(true);
    expect(list.allows('172.16.9.9')).toBe(true);
    expect(list.allows('172.32.0.1')).toBe(false);
    expect(list.allows('garbage')).toBe(false);
    expect(new IpAllowList([]).allows('8.8.8.8')).toBe(true);
  });

  it('refuses with 403 before authentication on the API, the hub path and the dashboard; a trusted proxy\'s X-Forwarded-For decides', async () => {
    await withServed({ allowedIpAddresses: ['10.0.0.0/8', '2001:db8::/32'], loginRateLimit: false }, async (s) => {
      // The socket address 127.0.0.1 is not allowed.
      for (const path of ['/svc-monitoring/api/config', '/svc-monitoring/api/tasks', '/svc-monitoring/hub/negotiate', '/svc-monitoring/', '/svc-monitoring/tasks']) {
        const r = await getJson(`${s.baseUrl}${path}`);
        expect(r.status, path).toBe(403);
        expect(r.headers.get('content-type'), path).toMatch(/problem\+json/);
      }
      expect((await postJson(`${s.api}/auth/login`, { username: 'admin', password: 'admin' })).status).toBe(403);
      // 127.0.0.1 is loopback, a trusted proxy by default: the right-most untrusted address is the client.
      const xff = { 'x-forwarded-for': '10.4.5.6, 127.0.0.1' };
      expect((await getJson(`${s.api}/config`, undefined, xff)).status).toBe(200);
      expect((await getJson(`${s.api}/tasks`, undefined, xff)).status).toBe(401);
      expect((await getJson(`${s.api}/config`, undefined, { 'x-forwarded-for': '2001:db8::42' })).status).toBe(200);
      expect((await getJson(`${s.api}/config`, undefined, { 'x-forwarded-for': '[2001:db8::42]:4444' })).status).toBe(200);
      expect((await getJson(`${s.api}/config`, undefined, { 'x-forwarded-for': '10.4.5.6, 192.0.2.1' })).status).toBe(403);
      expect((await getJson(`${s.api}/config`, undefined, { 'x-forwarded-for': 'not-an-ip' })).status).toBe(400);
      // The host's own routes are untouched.
      expect((await getJson(`${s.baseUrl}/host/ping`)).status).toBe(200);
    });
  });

  it('with trustForwardedFor=false the socket address decides', async () => {
    await withServed({ allowedIpAddresses: ['127.0.0.1'], trustForwardedFor: false }, async (s) => {
      expect((await getJson(`${s.api}/config`, undefined, { 'x-forwarded-for': '10.9.9.9' })).status).toBe(200);
    });
  });
});

describe('CORS: only under /svc-monitoring', () => {
  it('answers preflights and adds headers under the base path, never outside', async () => {
    await withServed({}, async (s) => {
      const pre = await fetch(`${s.api}/tasks`, {
        method: 'OPTIONS',
        headers: { origin: 'http://dashboard.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('*');
      expect(pre.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
      const get = await getJson(`${s.api}/config`, undefined, { origin: 'http://dashboard.example' });
      expect(get.headers.get('access-control-allow-origin')).toBe('*');
      const outside = await getJson(`${s.baseUrl}/host/ping`, undefined, { origin: 'http://dashboard.example' });
      expect(outside.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  it('restricts to corsAllowedOrigins, and enableCors=false adds nothing', async () => {
    await withServers([{ corsAllowedOrigins: ['https://ok.example'] }, { enableCors: false }], async ([s, off]) => {
      expect((await getJson(`${s.api}/config`, undefined, { origin: 'https://ok.example' })).headers.get('access-control-allow-origin')).toBe('https://ok.example');
      expect((await getJson(`${s.api}/config`, undefined, { origin: 'https://evil.example' })).headers.get('access-control-allow-origin')).toBeNull();
      expect((await getJson(`${off.api}/config`, undefined, { origin: 'https://ok.example' })).headers.get('access-control-allow-origin')).toBeNull();
    });
  });
});
