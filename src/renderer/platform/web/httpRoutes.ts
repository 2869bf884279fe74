import type { ApiOperation, ApiOperations, ApiParams, TaskQuery } from '../../../../server/src/contracts/api.js';

/** One HTTP request of spec §4, relative to the API base (`/svc-monitoring/api`). */
export interface HttpRoute {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | boolean | string[] | undefined>;
  body?: unknown;
}

const seg = (value: string): string => encodeURIComponent(value);

function taskQuery(q: TaskQuery): HttpRoute['query'] {
  return {
    statuses: q.statuses && q.statuses.length > 0 ? [...q.statuses] : undefined,
    queueName: q.queueName,
    taskType: q.taskType,
    isRecurring: q.isRecurring,
    createdAfter: q.createdAfter,
    createdBefore: q.createdBefore,
    searchTerm: q.searchTerm,
    searchScope: q.searchScope,
    requestSearch: q.requestSearch,
    parentTaskId: q.parentTaskId,
    onlyOccurrences: q.onlyOccurrences,
    onlyCatchUp: q.onlyCatchUp,
    sortBy: q.sortBy,
    sortDescending: q.sortDescending,
    page: q.page,
    pageSize: q.pageSize,
  };
}

type RouteTable = { [Op in ApiOperation]: (params: ApiOperations[Op]['params']) => HttpRoute };

/** Spec §4: every operation of the catalogue and its route. */
export const HTTP_ROUTES: RouteTable = {
  'config.get': () => ({ method: 'GET', path: '/config' }),
  'auth.login': (p) => ({ method: 'POST', path: '/auth/login', body: { username: p.username, password: p.password } }),
  'auth.magic': (p) => ({ method: 'POST', path: '/auth/magic', body: { token: p.token } }),
  'auth.validate': (p) => ({ method: 'POST', path: '/auth/validate', body: p.token ? { token: p.token } : {} }),
  'tasks.list': (p) => ({ method: 'GET', path: '/tasks', query: taskQuery(p) }),
  'tasks.counts': () => ({ method: 'GET', path: '/tasks/counts' }),
  'tasks.get': (p) => ({ method: 'GET', path: `/tasks/${seg(p.id)}` }),
  'tasks.statusAudit': (p) => ({ method: 'GET', path: `/tasks/${seg(p.id)}/status-audit`, query: { skip: p.skip, take: p.take } }),
  'tasks.runsAudit': (p) => ({ method: 'GET', path: `/tasks/${seg(p.id)}/runs-audit`, query: { skip: p.skip, take: p.take } }),
  'tasks.executionLogs': (p) => ({ method: 'GET', path: `/tasks/${seg(p.id)}/execution-logs`, query: { skip: p.skip, take: p.take } }),
  'tasks.occurrences': (p) => ({
    method: 'GET',
    path: `/tasks/${seg(p.id)}/occurrences`,
    query: { nonTerminalOnly: p.nonTerminalOnly, skip: p.skip, take: p.take },
  }),
  'dashboard.overview': (p) => ({ method: 'GET', path: '/dashboard/overview', query: { range: p.range } }),
  'dashboard.recentActivity': (p) => ({ method: 'GET', path: '/dashboard/recent-activity', query: { limit: p.limit } }),
  'queues.list': () => ({ method: 'GET', path: '/queues' }),
  'queues.tasks': (p) => {
    const { name, ...rest } = p;
    return { method: 'GET', path: `/queues/${seg(name)}/tasks`, query: taskQuery(rest) };
  },
  'statistics.successRateTrend': (p) => ({ method: 'GET', path: '/statistics/success-rate-trend', query: { period: p.period } }),
  'statistics.taskTypes': (p) => ({ method: 'GET', path: '/statistics/task-types', query: { range: p.range } }),
  'statistics.executionTimes': (p) => ({ method: 'GET', path: '/statistics/execution-times', query: { range: p.range } }),
  'management.requeue': (p) => ({ method: 'POST', path: `/management/tasks/${seg(p.id)}/requeue` }),
  'management.resume': (p) => ({ method: 'POST', path: `/management/tasks/${seg(p.id)}/resume` }),
  'management.cancel': (p) => ({ method: 'POST', path: `/management/tasks/${seg(p.id)}/cancel` }),
  'management.retry': (p) => ({ method: 'POST', path: `/management/tasks/${seg(p.id)}/retry` }),
  'management.bulk': (p) => ({
    method: 'POST',
    path: `/management/bulk/${seg(p.action)}`,
    body: { filter: p.filter, expectedCount: p.expectedCount },
  }),
  'management.bulkStatus': (p) => ({ method: 'GET', path: `/management/bulk/${seg(p.operationId)}` }),
  'statistics.failureGroups': (p) => ({ method: 'GET', path: '/statistics/failure-groups', query: { range: p.range } }),
};

export function routeFor<Op extends ApiOperation>(op: Op, params: ApiParams<Op>): HttpRoute {
  const build = HTTP_ROUTES[op] as (p: ApiParams<Op>) => HttpRoute;
  if (!build) throw new Error(`Unknown API operation "${String(op)}"`);
  return build(params);
}

/** Serializes a route's query: arrays repeat the parameter (statuses=A&statuses=B), undefined is left out. */
export function serializeQuery(query: HttpRoute['query']): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    if (Array.isArray(value)) for (const v of value) search.append(key, v);
    else search.append(key, String(value));
  }
  return search.toString();
}
