import type { ProxiedOperation } from './operationParams.js';

export interface HttpRoute {
  method: 'GET' | 'POST';
  /** Path relative to the API base (`/svc-monitoring/api`). */
  path: string;
  query: URLSearchParams;
  /** false: no bearer (only `/config`). */
  authenticated: boolean;
  /** Management answers carry a body with `status` on 404/409/501/503 too. */
  management: boolean;
}

type Params = Record<string, unknown>;

function queryOf(params: Params, omit: readonly string[] = []): URLSearchParams {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || omit.includes(key)) continue;
    if (Array.isArray(value)) for (const v of value) q.append(key, String(v));
    else q.append(key, String(value));
  }
  return q;
}

const seg = (v: unknown): string => encodeURIComponent(String(v));

/** Maps an operation (with validated params) to its HTTP route of spec §4. */
export function routeFor(operation: ProxiedOperation, params: Params): HttpRoute {
  const get = (path: string, query = new URLSearchParams()): HttpRoute => ({ method: 'GET', path, query, authenticated: true, management: false });
  const manage = (action: string): HttpRoute => ({
    method: 'POST',
    path: `/management/tasks/${seg(params.id)}/${action}`,
    query: new URLSearchParams(),
    authenticated: true,
    management: true,
  });
  switch (operation) {
    case 'config.get':
      return { ...get('/config'), authenticated: false };
    case 'tasks.list':
      return get('/tasks', queryOf(params));
    case 'tasks.counts':
      return get('/tasks/counts');
    case 'tasks.get':
      return get(`/tasks/${seg(params.id)}`);
    case 'tasks.statusAudit':
      return get(`/tasks/${seg(params.id)}/status-audit`, queryOf(params, ['id']));
    case 'tasks.runsAudit':
      return get(`/tasks/${seg(params.id)}/runs-audit`, queryOf(params, ['id']));
    case 'tasks.executionLogs':
      return get(`/tasks/${seg(params.id)}/execution-logs`, queryOf(params, ['id']));
    case 'tasks.occurrences':
      return get(`/tasks/${seg(params.id)}/occurrences`, queryOf(params, ['id']));
    case 'dashboard.overview':
      return get('/dashboard/overview', queryOf(params));
    case 'dashboard.recentActivity':
      return get('/dashboard/recent-activity', queryOf(params));
    case 'queues.list':
      return get('/queues');
    case 'queues.tasks':
      return get(`/queues/${seg(params.name)}/tasks`, queryOf(params, ['name']));
    case 'statistics.successRateTrend':
      return get('/statistics/success-rate-trend', queryOf(params));
    case 'statistics.taskTypes':
      return get('/statistics/task-types', queryOf(params));
    case 'statistics.executionTimes':
      return get('/statistics/execution-times', queryOf(params));
    case 'management.requeue':
      return manage('requeue');
    case 'management.resume':
      return manage('resume');
    case 'management.cancel':
      return manage('cancel');
  }
}
