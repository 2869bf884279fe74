import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertAudit, insertTask, login, useServed } from '../../fixtures/server/servedMonitoring.js';
import { BACKEND } from '../../fixtures/server/monitoredStore.js';

const PARAMS = [
  'statuses', 'queueName', 'taskType', 'isRecurring', 'createdAfter', 'createdBefore', 'searchTerm', 'parentTaskId',
  'onlyOccurrences', 'onlyCatchUp', 'sortBy', 'sortDescending', 'page', 'pageSize', 'skip', 'take', 'limit', 'range',
  'period', 'nonTerminalOnly', 'token',
];

describe(`property fuzz on ${BACKEND}: random query strings and bodies never produce a 5xx and always JSON`, () => {
  let token: string;
  let id: string;
  const s = useServed({ enableManagementEndpoints: true, managementUsername: 'op', managementPassword: 'op', loginRateLimit: false, magicLinkToken: 'z'.repeat(32) }, (db) => {
    id = insertTask(db, { status: 'Failed', task_key: 'fuzz-key' });
    insertAudit(db, id, 'Failed', Date.now(), 'Error: x');
    for (let i = 0; i < 30; i++) insertTask(db, { type: `Fuzz.T${i % 4}`, queue: `q${i % 3}`, status: i % 2 ? 'Completed' : 'Queued', created_at: Date.now() - i * 3_600_000 });
  });

  beforeAll(async () => {
    token = await login(s.api, 'op', 'op');
  });

  const paths = () => [
    'GET /tasks', 'GET /tasks/counts', `GET /tasks/${id}`, `GET /tasks/${id}/status-audit`, `GET /tasks/${id}/runs-audit`,
    `GET /tasks/${id}/occurrences`, `GET /tasks/${id}/execution-logs`, 'GET /dashboard/overview', 'GET /dashboard/recent-activity',
    'GET /queues', 'GET /queues/q1/tasks', 'GET /statistics/success-rate-trend', 'GET /statistics/task-types',
    'GET /statistics/execution-times', 'GET /config', 'GET /auth/magic', 'POST /auth/login', 'POST /auth/magic', 'POST /auth/validate',
    `POST /management/tasks/${id}/requeue`, `POST /management/tasks/${randomUUID()}/resume`, `POST /management/tasks/${id}/cancel`,
    'GET /tasks/%E0%A4%A', 'GET /queues/%ZZ/tasks',
  ];

  const value = fc.oneof(
    fc.string(),
    fc.constantFrom('true', 'false', '-1', '0', '1e309', '99999999999999999999', 'NaN', '2024-02-30T25:61:00Z', 'Completed', 'createdatutc', 'All', '%00', '{}'),
    fc.integer().map(String),
    fc.uuid(),
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  );
  const query = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...PARAMS), fc.string()), value), { maxLength: 6 });
  const body = fc.oneof(
    fc.json(),
    fc.string(),
    fc.constant('{"username":'),
    fc.record({ username: fc.oneof(fc.string(), fc.integer(), fc.constant(null)), password: fc.oneof(fc.string(), fc.array(fc.string())) }).map((o) => JSON.stringify(o)),
    fc.record({ token: fc.oneof(fc.string(), fc.integer(), fc.constant(null)) }).map((o) => JSON.stringify(o)),
  );

  it('every endpoint', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths()), query, body, fc.boolean(), async (route, q, b, withToken) => {
        const [method, path] = route.split(' ') as [string, string];
        const qs = q.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
        const res = await fetch(`${s.api}${path}${qs ? `?${qs}` : ''}`, {
          method,
          headers: { 'content-type': 'application/json', ...(withToken ? { authorization: `Bearer ${token}` } : {}) },
          body: method === 'POST' ? b : undefined,
        });
        const text = await res.text();
        // Management may answer 501 NotSupported (standalone) by design; nothing else is ≥ 500.
        if (path.includes('/management/')) expect([200, 400, 401, 403, 404, 409, 501]).toContain(res.status);
        else expect(res.status, `${route}?${qs} ${b}`).toBeLessThan(500);
        expect(res.headers.get('content-type') ?? '', route).toMatch(/application\/(problem\+)?json/);
        expect(() => JSON.parse(text)).not.toThrow();
      }),
      { numRuns: 400 },
    );
  });
});
