// @backends sqlite — reads no stored data: HTTP, authentication, network and hub transport behaviour, the same over any store.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getJson, login, postJson, withServed, withServers } from '../../fixtures/server/servedMonitoring.js';

const preflight = (url: string, origin: string) =>
  fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });

describe('CORS', () => {
  it('with no listed origin: * without credentials, Authorization allowed; the null origin gets * too, never itself', async () => {
    await withServed({}, async (s) => {
      for (const origin of ['https://anywhere.example', 'null']) {
        const pre = await preflight(`${s.api}/tasks`, origin);
        expect(pre.status, origin).toBe(204);
        expect(pre.headers.get('access-control-allow-origin'), origin).toBe('*');
        expect(pre.headers.get('access-control-allow-credentials'), origin).toBeNull();
        expect(pre.headers.get('access-control-allow-headers')?.toLowerCase(), origin).toContain('authorization');
        const get = await getJson(`${s.api}/config`, undefined, { origin });
        expect(get.headers.get('access-control-allow-origin'), origin).toBe('*');
        expect(get.headers.get('access-control-allow-credentials'), origin).toBeNull();
      }
    });
  });

  it('with a list: only listed origins are echoed; others and null get no CORS header', async () => {
    await withServed({ corsAllowedOrigins: ['https://ok.example'] }, async (s) => {
      const ok = await preflight(`${s.api}/tasks`, 'https://ok.example');
      expect(ok.headers.get('access-control-allow-origin')).toBe('https://ok.example');
      expect(ok.headers.get('vary')).toMatch(/Origin/i);
      for (const origin of ['https://evil.example', 'null', 'https://ok.example.evil.example']) {
        const r = await getJson(`${s.api}/config`, undefined, { origin });
        expect(r.headers.get('access-control-allow-origin'), origin).toBeNull();
        expect(r.headers.get('access-control-allow-credentials'), origin).toBeNull();
        expect((await preflight(`${s.api}/tasks`, origin)).headers.get('access-control-allow-origin'), origin).toBeNull();
      }
    });
  });
});

describe('defensive headers', () => {
  const webRoot = (t: { dir: string }) => {
    const web = join(t.dir, 'web');
    mkdirSync(join(web, 'assets'), { recursive: true });
    writeFileSync(join(web, 'index.html'), '<!doctype html><title>Svc Monitor dashboard</title>');
    writeFileSync(join(web, 'assets', 'index-abc123.js'), 'console.log(1)');
    return web;
  };

  it('dashboard and reference page: CSP without inline scripts and with frame-ancestors none, nosniff, no-referrer', async () => {
    await withServers([(t) => ({ webRoot: webRoot(t), enableScalar: true })], async ([s]) => {
      for (const path of ['/svc-monitoring/', '/svc-monitoring/tasks/123', '/svc-monitoring/scalar', '/svc-monitoring/assets/index-abc123.js']) {
        const r = await fetch(`${s.baseUrl}${path}`);
        expect(r.status, path).toBe(200);
        const csp = r.headers.get('content-security-policy') ?? '';
        expect(csp, path).toMatch(/(^|; )default-src 'self'(;|$)/);
        expect(csp, path).toMatch(/(^|; )script-src 'self'(;|$)/);
        expect(csp, path).toMatch(/(^|; )frame-ancestors 'none'(;|$)/);
        expect(csp, path).not.toMatch(/unsafe-eval|https?:/);
        expect(r.headers.get('x-content-type-options'), path).toBe('nosniff');
        expect(r.headers.get('referrer-policy'), path).toBe('no-referrer');
      }
    });
  });

  it('API answers are Cache-Control: no-store, errors and refusals included', async () => {
    await withServers([{ loginRateLimit: false }, { allowedIpAddresses: ['10.0.0.1'] }], async ([s, blocked]) => {
      const token = await login(s.api);
      expect((await getJson(`${s.api}/tasks`, token)).headers.get('cache-control')).toBe('no-store');
      expect((await getJson(`${s.api}/config`)).headers.get('cache-control')).toBe('no-store');
      expect((await getJson(`${s.api}/tasks`)).headers.get('cache-control')).toBe('no-store');
      expect((await getJson(`${s.api}/tasks?createdAfter=nope`, token)).headers.get('cache-control')).toBe('no-store');
      expect((await postJson(`${s.api}/auth/login`, { username: 'admin', password: 'x' })).headers.get('cache-control')).toBe('no-store');
      expect((await getJson(`${s.api}/management/tasks`)).headers.get('cache-control')).toBe('no-store');
      const refused = await getJson(`${blocked.api}/config`);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('cache-control')).toBe('no-store');
    });
  });

  it('an unknown file-like path gets a 404 problem; route-like paths still fall back to the app', async () => {
    await withServers([(t) => ({ webRoot: webRoot(t) })], async ([s]) => {
      for (const path of ['/svc-monitoring/nothing/here.json', '/svc-monitoring/favicon.ico', '/svc-monitoring/robots.txt', '/svc-monitoring/tasks/x.js.map']) {
        const r = await getJson(`${s.baseUrl}${path}`);
        expect(r.status, path).toBe(404);
        expect(r.headers.get('content-type'), path).toMatch(/problem\+json/);
        expect(r.body.status, path).toBe(404);
      }
      for (const path of ['/svc-monitoring/tasks', '/svc-monitoring/tasks/6f1c2a70-1b7e-4a47-9e43-2bb1c1f0a9f1', '/svc-monitoring/magic']) {
        const r = await fetch(`${s.baseUrl}${path}`);
        expect(r.status, path).toBe(200);
        expect(await r.text(), path).toContain('Svc Monitor dashboard');
      }
    });
  });
});

describe('the reference page loads nothing from a CDN', () => {
  it('its scripts are the installed @scalar/api-reference standalone bundle, served here', async () => {
    await withServed({ enableScalar: true }, async (s) => {
      const page = await (await fetch(`${s.baseUrl}/svc-monitoring/scalar`)).text();
      expect(page).not.toMatch(/https?:\/\//);
      const scripts = [...page.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
      expect(scripts.length).toBeGreaterThan(0);
      for (const attrs of scripts) expect(attrs).toMatch(/src="\/svc-monitoring\/scalar\/standalone\.js"/);
      const bundle = await fetch(`${s.baseUrl}/svc-monitoring/scalar/standalone.js`);
      expect(bundle.status).toBe(200);
      expect(bundle.headers.get('content-type')).toMatch(/javascript/);
      expect(bundle.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await bundle.text()).toContain('createApiReference');
    });
  });
});
