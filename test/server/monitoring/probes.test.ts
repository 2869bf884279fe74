import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../server/src/monitoring/openapi/openApiDocument.js';
import { migrations } from '../../../server/src/storage/sqlite/migrations/index.js';
import { createTempDatabase, serve, withServed } from '../../fixtures/server/servedMonitoring.js';

const get = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('GET /svc-monitoring/health/live and /health/ready', () => {
  it('answer without a token and before the allow-list; readiness reports storage and migrations, then 503 once draining', async () => {
    // Only 10.0.0.0/8 is allowed: the API refuses this loopback client, the probes do not.
    await withServed({ enableAuthentication: true, allowedIpAddresses: ['10.0.0.0/8'] }, async (s) => {
      const base = `${s.baseUrl}/svc-monitoring`;
      expect((await fetch(`${s.api}/health`)).status).toBe(403);
      expect(await get(`${base}/health/live`)).toEqual({ status: 200, body: { status: 'alive' } });
      expect(await get(`${base}/health/ready`)).toEqual({
        status: 200,
        body: { status: 'ready', storage: 'reachable', migrations: 'applied', draining: false },
      });
      const res = await fetch(`${base}/health/ready`);
      expect(res.headers.get('cache-control')).toBe('no-store');
      s.monitoring.drain();
      expect(await get(`${base}/health/ready`)).toEqual({
        status: 503,
        body: { status: 'unavailable', storage: 'reachable', migrations: 'applied', draining: true },
      });
      // Draining changes readiness only: liveness and the API still answer.
      expect((await get(`${base}/health/live`)).status).toBe(200);
    });
  });
});

describe('readiness over a SQLite file', () => {
  it('503 with migrations pending when the file is older than this version, and storage unreachable once it is closed', async () => {
    const t = createTempDatabase();
    const served = await serve({ storage: { db: t.db } }, { enableAuthentication: false });
    try {
      const ready = `${served.baseUrl}/svc-monitoring/health/ready`;
      expect((await get(ready)).status).toBe(200);
      t.db.pragma(`user_version = ${migrations[migrations.length - 1]!.version - 1}`);
      expect(await get(ready)).toEqual({ status: 503, body: { status: 'unavailable', storage: 'reachable', migrations: 'pending', draining: false } });
      t.db.close();
      expect(await get(ready)).toEqual({ status: 503, body: { status: 'unavailable', storage: 'unreachable', migrations: 'unknown', draining: false } });
    } finally {
      await served.close();
      t.cleanup();
    }
  });

  it('the OpenAPI document lists both probes with no security, under the monitoring base path', () => {
    const doc = buildOpenApiDocument() as { paths: Record<string, { servers: unknown; get: { security: unknown[]; responses: Record<string, unknown> } }> };
    for (const path of ['/health/live', '/health/ready']) {
      expect(doc.paths[path]!.servers).toEqual([{ url: '/svc-monitoring' }]);
      expect(doc.paths[path]!.get.security).toEqual([]);
    }
    expect(Object.keys(doc.paths['/health/ready']!.get.responses).sort()).toEqual(['200', '503']);
  });
});
