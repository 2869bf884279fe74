import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  BASE_ROUTES,
  API_LIMITS,
  API_ROUTES,
  buildApiRequest,
  pathParamsOf,
  readFailure,
  requestUrl,
  type ApiOperation,
  type ApiRouteSpec,
  type QueryParamSpec,
} from '../../../server/src/contracts/index.js';
import { API_HANDLERS } from '../../../server/src/monitoring/apiHandlers.js';
import { buildOpenApiDocument, documentedPathsOf } from '../../../server/src/monitoring/openapi/openApiDocument.js';
import { insertAudit, insertTask, login, useServed } from '../../fixtures/server/servedMonitoring.js';
import { BACKEND } from '../../fixtures/server/monitoredStore.js';

const entries = Object.entries(API_ROUTES) as Array<[ApiOperation, ApiRouteSpec]>;
const MAGIC = 'magic-token-for-the-catalogue-test';

/** A valid value of every query parameter, the way a client would send it. */
function sampleQuery(spec: QueryParamSpec, taskId: string): unknown {
  switch (spec.kind) {
    case 'enum':
      return spec.values?.[spec.values.length - 1];
    case 'enumList':
      return spec.values?.slice(0, 2);
    case 'integer':
      return spec.max ?? (spec.min ?? 0) + 5;
    case 'boolean':
      return false;
    case 'date':
      return '2020-01-01T00:00:00Z';
    case 'guid':
      return taskId;
    case 'string':
      return spec.name === 'token' ? MAGIC : (spec.examples?.[0] ?? 'x');
  }
}

describe('route catalogue', () => {
  it('every operation has a handler and nothing else does', () => {
    expect(Object.keys(API_HANDLERS).sort()).toEqual(Object.keys(API_ROUTES).sort());
  });

  it('the OpenAPI document describes exactly the catalogue: paths, methods, operation ids, parameters, security', () => {
    const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, { operationId: string; parameters?: Array<{ name: string; in: string }>; security: unknown[] }>> };
    const baseRoutes = Object.values(BASE_ROUTES);
    // A route outside the API base names its own server (the monitoring's base path).
    for (const route of baseRoutes) expect((doc.paths[route.path] as unknown as { servers: unknown }).servers).toEqual([{ url: '/svc-monitoring' }]);
    const methodsOf = (item: object) => Object.keys(item).filter((k) => k !== 'servers');
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) => methodsOf(methods).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(
      [...entries.flatMap(([, r]) => documentedPathsOf(r).map((d) => `${r.method} ${d.path}`)), ...baseRoutes.map((r) => `${r.method} ${r.path}`)].sort(),
    );
    for (const [op, route] of entries) {
      for (const d of documentedPathsOf(route)) {
        const o = doc.paths[d.path]![route.method.toLowerCase()]!;
        expect(o.operationId, op).toBe(d.operationId);
        expect((o.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name), op).toEqual(route.query.map((q) => q.name));
        expect((o.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name), op).toEqual(pathParamsOf(route.path).filter((n) => n !== d.fixed?.name));
        expect(o.security.length > 0, op).toBe(route.auth === 'bearer' || route.auth === 'optional-bearer');
      }
    }
    // No two documented paths are the same template under different parameter names.
    const shapes = Object.keys(doc.paths).map((p) => p.replace(/\{[^}]+\}/g, '{}'));
    expect(new Set(shapes).size).toBe(shapes.length);
    const operationIds = Object.values(doc.paths).flatMap((methods) => methodsOf(methods).map((m) => methods[m]!.operationId));
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });

  it('builds paths with encoded parameters, repeated list values, and leaves unset values out', () => {
    const r = buildApiRequest('queues.tasks', { name: 'q 1/x', statuses: ['Failed', 'Queued'], onlyCatchUp: false, page: 2, taskType: undefined, searchTerm: '' });
    expect(r.path).toBe('/queues/q%201%2Fx/tasks');
    expect(requestUrl('/svc-monitoring/api/', r)).toBe('/svc-monitoring/api/queues/q%201%2Fx/tasks?statuses=Failed&statuses=Queued&onlyCatchUp=false&page=2');
    expect(r).toMatchObject({ method: 'GET', authenticated: true, management: false });
    expect(r.body).toBeUndefined();
    expect(buildApiRequest('auth.login', { username: 'u', password: 'p' })).toMatchObject({ method: 'POST', body: { username: 'u', password: 'p' }, authenticated: false });
    expect(buildApiRequest('management.cancel', { id: 'abc' })).toMatchObject({ path: '/management/tasks/abc/cancel', body: {}, management: true });
    expect(() => buildApiRequest('tasks.get', {} as never)).toThrow(/"id" is missing/);
  });
});

/** Management actions that are storage operations (requeue, resume, cancel). */
const STORAGE_ACTIONS: readonly string[] = ['management.requeue', 'management.resume', 'management.cancel'];

describe('requests built from the catalogue, sent to the real router', () => {
  let taskId = '';
  const s = useServed(
    { enableManagementEndpoints: true, managementUsername: 'operator', managementPassword: 'operator', magicLinkToken: MAGIC, loginRateLimit: false },
    (db) => {
      taskId = insertTask(db, { type: 'Demo.Catalogue.Task', queue: 'default', status: 'Failed' });
      insertAudit(db, taskId, 'Failed', Date.now(), 'Error: boom');
    },
  );

  it.each(entries)('%s: every catalogue parameter is accepted and answered by its handler', async (op, route) => {
    const operate = route.management || route.role === 'operate';
    const token = await login(s.api, operate ? 'operator' : 'admin', operate ? 'operator' : 'admin');
    const params: Record<string, unknown> = {};
    const pathSamples: Record<string, string> = { name: 'default', id: taskId, action: 'requeue', operationId: randomUUID() };
    for (const name of pathParamsOf(route.path)) params[name] = pathSamples[name];
    for (const q of route.query) params[q.name] = sampleQuery(q, taskId);
    if (op === 'auth.login') Object.assign(params, { username: 'admin', password: 'admin' });
    if (op === 'auth.magic') params.token = MAGIC;
    if (op === 'auth.validate') params.token = token;
    if (op === 'management.bulk') Object.assign(params, { filter: { statuses: ['Failed'] }, expectedCount: 1 });
    const request = buildApiRequest(op, params as never);
    const response = await fetch(requestUrl(s.api, request), {
      method: request.method,
      headers: { ...(request.authenticated ? { authorization: `Bearer ${token}` } : {}), ...(request.body ? { 'content-type': 'application/json' } : {}) },
      ...(request.body ? { body: JSON.stringify(request.body) } : {}),
    });
    const body = (await response.json()) as unknown;
    if (op === 'management.bulkStatus') {
      // The handler's own answer (no engine keeps operations here), not the router's.
      expect(response.status).toBe(404);
      expect(body).toMatchObject({ detail: expect.stringMatching(/^No bulk operation/) });
    } else if (route.management && BACKEND === 'postgres' && STORAGE_ACTIONS.includes(op)) {
      // On PostgreSQL a standalone registration performs the storage actions (any process may); the
      // row is a failed one-shot, neither a schedule nor an occurrence, so each refuses it.
      expect(response.status, JSON.stringify(body)).toBe(409);
      expect(body).toMatchObject({ status: 'Conflict', taskId });
    } else if (route.management) {
      // A standalone registration cannot run the other actions; the handler says so in a management body.
      expect(response.status, JSON.stringify(body)).toBe(501);
      expect(body).toMatchObject({ status: 'NotSupported' });
    } else {
      expect(response.status, JSON.stringify(body)).toBe(200);
    }
  });

  it('limits the clients check match what the server clamps to', async () => {
    const token = await login(s.api);
    const over = buildApiRequest('tasks.list', { page: API_LIMITS.maxPage + 5, pageSize: API_LIMITS.maxPageSize + 5 });
    const r = (await (await fetch(requestUrl(s.api, over), { headers: { authorization: `Bearer ${token}` } })).json()) as { page: number; pageSize: number };
    expect(r).toMatchObject({ page: API_LIMITS.maxPage, pageSize: API_LIMITS.maxPageSize });
  });

  it('a refused value answers a problem that both clients read the same way', async () => {
    const token = await login(s.api);
    const response = await fetch(`${s.api}/tasks?sortBy=Nope`, { headers: { authorization: `Bearer ${token}` } });
    const failure = readFailure(response.status, await response.json(), response.headers.get('retry-after'));
    expect(failure.status).toBe(400);
    expect(failure.problem?.errors).toHaveProperty('sortBy');
    expect(failure.message).toMatch(/sortBy/);
  });
});
