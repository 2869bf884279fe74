// @backends sqlite — reads no stored data: HTTP, authentication, network and hub transport behaviour, the same over any store.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getJson, withServed, withServers } from '../../fixtures/server/servedMonitoring.js';

const ENDPOINTS = [
  'post /auth/login', 'post /auth/magic', 'get /auth/magic', 'post /auth/validate', 'get /config', 'get /health', 'get /tasks', 'get /tasks/counts',
  'get /tasks/{id}', 'get /tasks/{id}/status-audit', 'get /tasks/{id}/runs-audit', 'get /tasks/{id}/occurrences',
  'get /tasks/{id}/execution-logs', 'get /dashboard/overview', 'get /dashboard/recent-activity', 'get /queues',
  'get /queues/{name}/tasks', 'get /statistics/success-rate-trend', 'get /statistics/task-types', 'get /statistics/execution-times',
  'post /management/tasks/{id}/requeue', 'post /management/tasks/{id}/resume', 'post /management/tasks/{id}/cancel',
  'post /management/tasks/{id}/retry', 'post /management/bulk/requeue', 'post /management/bulk/retry', 'post /management/bulk/cancel', 'get /management/bulk/{operationId}', 'get /statistics/failure-groups',
  'get /audit',
  // outside the API base (its path item names the server /svc-monitoring)
  'get /metrics', 'get /health/live', 'get /health/ready',
];

describe('OpenAPI document and Scalar page', () => {
  it('absent by default', async () => {
    await withServed({ enableUI: false }, async (s) => {
      expect((await getJson(`${s.baseUrl}/svc-monitoring/openapi/svc-monitoring.json`)).status).toBe(404);
      expect((await getJson(`${s.baseUrl}/svc-monitoring/scalar`)).status).toBe(404);
    });
  });

  it('describes every endpoint, its parameters and schemas with enableOpenApiDocument', async () => {
    await withServed({ enableOpenApiDocument: true }, async (s) => {
      const r = await getJson(`${s.baseUrl}/svc-monitoring/openapi/svc-monitoring.json`);
      expect(r.status).toBe(200);
      const doc = r.body;
      expect(doc.openapi).toBe('3.1.0');
      const ops = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, methods]) =>
        Object.keys(methods).filter((m) => m !== 'servers').map((m) => `${m} ${p}`),
      );
      expect(ops.sort()).toEqual([...ENDPOINTS].sort());
      expect(doc.paths['/metrics'].servers).toEqual([{ url: '/svc-monitoring' }]);
      const listParams = (doc.paths['/tasks'].get.parameters as { name: string }[]).map((p) => p.name);
      expect(listParams).toEqual(expect.arrayContaining([
        'statuses', 'queueName', 'taskType', 'isRecurring', 'createdAfter', 'createdBefore', 'searchTerm', 'parentTaskId',
        'onlyOccurrences', 'onlyCatchUp', 'sortBy', 'sortDescending', 'page', 'pageSize',
      ]));
      // Every $ref resolves.
      const refs = JSON.stringify(doc).match(/#\/components\/schemas\/[A-Za-z]+/g) ?? [];
      for (const ref of new Set(refs)) expect(doc.components.schemas, ref).toHaveProperty(ref.split('/').pop()!);
      expect(doc.components.schemas.TaskDetail.properties).toHaveProperty('executionLogsTotalCount');
      expect((await getJson(`${s.baseUrl}/svc-monitoring/scalar`)).status).toBe(404);
    });
  });

  it('the Scalar reference page enables the document', async () => {
    await withServed({ enableScalar: true }, async (s) => {
      const page = await fetch(`${s.baseUrl}/svc-monitoring/scalar`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(await page.text()).toContain('/svc-monitoring/openapi/svc-monitoring.json');
      expect((await getJson(`${s.baseUrl}/svc-monitoring/openapi/svc-monitoring.json`)).status).toBe(200);
    });
  });
});

describe('embedded dashboard (enableUI)', () => {
  it('serves index.html no-cache with SPA fallback and hashed assets immutable, behind the allow-list', async () => {
    // A built dashboard in the database's folder, served twice: open, and behind the allow-list.
    const webRoot = (t: { dir: string }) => {
      const web = join(t.dir, 'web');
      mkdirSync(join(web, 'assets'), { recursive: true });
      writeFileSync(join(web, 'index.html'), '<!doctype html><title>Svc Monitor dashboard</title>');
      writeFileSync(join(web, 'assets', 'index-abc123.js'), 'console.log(1)');
      return web;
    };
    await withServers([(t) => ({ webRoot: webRoot(t) }), (t) => ({ webRoot: join(t.dir, 'web'), allowedIpAddresses: ['10.0.0.1'] })], async ([s, blocked]) => {
      for (const p of ['/svc-monitoring', '/svc-monitoring/', '/svc-monitoring/tasks/123', '/svc-monitoring/magic']) {
        const r = await fetch(`${s.baseUrl}${p}`);
        expect(r.status, p).toBe(200);
        expect(r.headers.get('cache-control'), p).toBe('no-cache');
        expect(await r.text()).toContain('Svc Monitor dashboard');
      }
      const asset = await fetch(`${s.baseUrl}/svc-monitoring/assets/index-abc123.js`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect((await fetch(`${s.baseUrl}/svc-monitoring/assets/missing.js`)).status).toBe(404);
      // API paths never fall back to the SPA.
      const api = await getJson(`${s.api}/unknown`);
      expect(api.status).toBe(404);
      expect(api.headers.get('content-type')).toMatch(/problem\+json/);
      expect((await fetch(`${blocked.baseUrl}/svc-monitoring/`)).status).toBe(403);
      expect((await fetch(`${blocked.baseUrl}/svc-monitoring/assets/index-abc123.js`)).status).toBe(403);
    });
  });

  it('a page saying the dashboard is not built when the folder is missing; nothing with enableUI=false', async () => {
    await withServers([(t) => ({ webRoot: join(t.dir, 'nowhere') }), (t) => ({ enableUI: false, webRoot: join(t.dir, 'nowhere') })], async ([s, off]) => {
      const r = await fetch(`${s.baseUrl}/svc-monitoring/`);
      expect(r.status).toBe(200);
      expect(await r.text()).toContain('not built');
      expect((await fetch(`${off.baseUrl}/svc-monitoring/`)).status).toBe(404);
      expect((await getJson(`${off.api}/config`)).body.uiEnabled).toBe(false);
    });
  });
});
