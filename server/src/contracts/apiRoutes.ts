/**
 * The route catalogue of the monitoring API: for every operation its method, path, who may
 * call it, whether it is a management action, and the query parameters it reads (with their
 * kinds, allowed values, limits and defaults). The Express router mounts its handlers from
 * this table, the OpenAPI document takes its paths and parameters from it, and both clients
 * (the web dashboard and the desktop main process) build their requests with it.
 *
 * Plain data with no imports beyond the contracts: the renderer and the desktop main process
 * load it at run time.
 */
import type { ApiOperation, TaskSortField } from './api.js';
import type { SearchScope } from './operations.js';
import { OPERATOR_ACTIONS, OPERATOR_AUDIT_RESULTS } from './operatorAudit.js';
import { TASK_STATUSES, type DashboardRange, type TrendPeriod } from './task.js';

export type HttpMethod = 'GET' | 'POST';

/**
 * Who may call an operation.
 * - `public`: no bearer is needed (runtime configuration).
 * - `credentials`: the caller proves itself in the body (login, magic link); rate limited.
 * - `bearer`: a token is required whenever the host enables authentication.
 * - `optional-bearer`: the token may come in the body or as the bearer (token validation).
 */
export type RouteAuth = 'public' | 'credentials' | 'bearer' | 'optional-bearer';

export type QueryKind = 'string' | 'boolean' | 'integer' | 'date' | 'guid' | 'enum' | 'enumList';

export interface QueryParamSpec {
  readonly name: string;
  readonly kind: QueryKind;
  readonly description: string;
  /** Allowed values of `enum` and `enumList` (matched case-insensitively by the server). */
  readonly values?: readonly string[];
  /** Integer bounds: the server clamps values outside them. */
  readonly min?: number;
  readonly max?: number;
  readonly default?: string | number | boolean;
  readonly required?: boolean;
  /** Example values for the reference documentation. */
  readonly examples?: readonly string[];
}

/** An enum parameter whose values are known to the type system. */
export type EnumParamSpec<T extends string> = QueryParamSpec & { readonly values: readonly T[] };

export interface ApiRouteSpec {
  readonly method: HttpMethod;
  /** Path under the API base (`/svc-monitoring/api`), path parameters as `{name}`. */
  readonly path: string;
  readonly auth: RouteAuth;
  /**
   * Management actions exist only when the host enables them, pass the management gate, and
   * answer a body with `status` on 404/409/501/503 too.
   */
  readonly management: boolean;
  readonly query: readonly QueryParamSpec[];
  /** Fields of the JSON body the operation reads. */
  readonly body?: readonly string[];
  /** The OpenAPI operationId and one-line summary. */
  readonly operationId: string;
  readonly summary: string;
  readonly deprecated?: boolean;
  /** Beyond the bearer: the role the session must hold (the `managementAuthorization` hook decides instead when set). */
  readonly role?: 'operate';
}

export const DASHBOARD_RANGES = ['Today', 'Week', 'Month', 'All'] as const satisfies readonly DashboardRange[];
export const TREND_PERIODS = ['Last7Days', 'Last30Days', 'Last90Days'] as const satisfies readonly TrendPeriod[];
/** Compile-time proof that the lists above name every value of their types. */
type Lists<All extends string, Listed extends string> = [Exclude<All, Listed>] extends [never] ? true : Exclude<All, Listed>;
const everyRangeListed: Lists<DashboardRange, (typeof DASHBOARD_RANGES)[number]> = true;
const everyPeriodListed: Lists<TrendPeriod, (typeof TREND_PERIODS)[number]> = true;
void everyRangeListed;
void everyPeriodListed;
export const SEARCH_SCOPES = ['Names', 'NamesAndArguments'] as const satisfies readonly SearchScope[];
export const TASK_SORT_FIELDS = [
  'CreatedAtUtc',
  'LastExecutionUtc',
  'ScheduledExecutionUtc',
  'StartedAtUtc',
  'Status',
  'Type',
  'QueueName',
  'ExecutionTimeMs',
] as const;

/** Limits shared by the server's parsers and the clients' argument checks. */
export const API_LIMITS = {
  maxPage: 1_000_000_000,
  maxPageSize: 500,
  defaultPageSize: 20,
  maxTake: 500,
  defaultTake: 100,
  maxRecentActivity: 100,
  defaultRecentActivity: 50,
} as const;

const param = (name: string, kind: QueryKind, description: string, extra: Partial<QueryParamSpec> = {}): QueryParamSpec => ({
  name,
  kind,
  description,
  ...extra,
});

const enumParam = <T extends string>(name: string, description: string, extra: Partial<QueryParamSpec> & { values: readonly T[] }): EnumParamSpec<T> => ({
  name,
  kind: 'enum',
  description,
  ...extra,
});

export const RANGE_PARAM: EnumParamSpec<DashboardRange> = enumParam('range', 'Range over createdAtUtc.', { values: DASHBOARD_RANGES, default: 'Today' });
export const PERIOD_PARAM: EnumParamSpec<TrendPeriod> = enumParam('period', 'Daily points (7/30 days) or weekly points (90 days).', {
  values: TREND_PERIODS,
  default: 'Last7Days',
});
export const TIME_ZONE_PARAM = param(
  'timeZone',
  'string',
  "Additive (not in the spec): an IANA time zone. Ranges then follow the zone's calendar: Today = since local midnight, Week = the last 7 local days, Month = the last 30, and chart or trend buckets start at local midnights (hours for Today), so every figure of one response covers the same window. Absent: the spec's UTC ranges. Unknown zone → 400.",
  { examples: ['America/Los_Angeles', 'UTC'] },
);
export const LIMIT_PARAM = param('limit', 'integer', `Items (clamped to 1..${API_LIMITS.maxRecentActivity}).`, {
  min: 1,
  max: API_LIMITS.maxRecentActivity,
  default: API_LIMITS.defaultRecentActivity,
});
export const SKIP_PARAM = param('skip', 'integer', 'Entries to skip (clamped to ≥ 0).', { min: 0, default: 0 });
export const TAKE_PARAM = param('take', 'integer', `Entries to return (clamped to 0..${API_LIMITS.maxTake}; 0 returns the total alone).`, {
  min: 0,
  max: API_LIMITS.maxTake,
  default: API_LIMITS.defaultTake,
});
export const NON_TERMINAL_ONLY_PARAM = param('nonTerminalOnly', 'boolean', 'Only occurrences that can still lead to an execution.', {
  default: false,
});
export const PAGE_PARAMS: readonly QueryParamSpec[] = [SKIP_PARAM, TAKE_PARAM];

export const SORT_BY_PARAM: EnumParamSpec<TaskSortField> = enumParam('sortBy', 'Sort field (case-insensitive); other values → 400.', {
  values: TASK_SORT_FIELDS,
  default: 'CreatedAtUtc',
});

/** Query of GET /tasks (GET /queues/{name}/tasks reads the same without queueName). */
export const TASK_LIST_PARAMS: readonly QueryParamSpec[] = [
  param('statuses', 'enumList', 'Status names; repeat the parameter (or separate with commas).', { values: TASK_STATUSES }),
  param('queueName', 'string', 'Exact queue name.'),
  param('taskType', 'string', 'Partial, case-insensitive match on the type name.'),
  param('isRecurring', 'boolean', 'Recurring rows only (true) or one-shots only (false).'),
  param('createdAfter', 'date', 'Created at or after (ISO 8601; no zone = UTC).'),
  param('createdBefore', 'date', 'Created at or before (ISO 8601; no zone = UTC).'),
  param('searchTerm', 'string', 'Partial match on type, handler or task key (and the request JSON with searchScope=NamesAndArguments).'),
  enumParam('searchScope', 'Additive: where searchTerm looks: Names (type, handler, task key) or NamesAndArguments (also the request JSON).', {
    values: SEARCH_SCOPES,
    default: 'Names',
  }),
  param('requestSearch', 'string', 'Additive: words and quoted phrases that must all occur in the request JSON.'),
  param(
    'failureFingerprint',
    'string',
    'Additive: only tasks whose last run failed with an error of this fingerprint (exact, as GET /statistics/failure-groups reports it).',
    { examples: ['Error: SMTP # for invoice #'] },
  ),
  param('parentTaskId', 'guid', 'Only occurrences of this durable schedule.'),
  param('onlyOccurrences', 'boolean', 'true: only materialized occurrences; false: only rows that are not one.'),
  param('onlyCatchUp', 'boolean', 'true: only CatchUp occurrences; false: only rows standing for no missed work.'),
  SORT_BY_PARAM,
  param('sortDescending', 'boolean', 'Sort direction.', { default: true }),
  param('page', 'integer', 'Page number (clamped to ≥ 1).', { min: 1, max: API_LIMITS.maxPage, default: 1 }),
  param('pageSize', 'integer', `Page size (clamped to 1..${API_LIMITS.maxPageSize}).`, {
    min: 1,
    max: API_LIMITS.maxPageSize,
    default: API_LIMITS.defaultPageSize,
  }),
];
export const QUEUE_TASK_LIST_PARAMS: readonly QueryParamSpec[] = TASK_LIST_PARAMS.filter((p) => p.name !== 'queueName');
/** The filter of a bulk action (its body's `filter`): the task-list parameters without paging and sorting. */
export const BULK_FILTER_PARAMS: readonly QueryParamSpec[] = TASK_LIST_PARAMS.filter((p) => !['sortBy', 'sortDescending', 'page', 'pageSize'].includes(p.name));

/** Query of GET /audit: filters, then the task lists' paging (newest first). */
export const OPERATOR_AUDIT_PARAMS: readonly QueryParamSpec[] = [
  param('actor', 'string', 'Exact user name (as recorded: the attempted one for a failed sign-in).'),
  param('action', 'enum', 'One action.', { values: OPERATOR_ACTIONS }),
  param('target', 'string', 'Exact id of the row acted on (a task or schedule id).'),
  param('result', 'enum', 'ok, refused (4xx) or error (5xx).', { values: OPERATOR_AUDIT_RESULTS }),
  param('from', 'date', 'Recorded at or after (ISO 8601; no zone = UTC).'),
  param('to', 'date', 'Recorded at or before (ISO 8601; no zone = UTC).'),
  param('page', 'integer', 'Page number (clamped to ≥ 1).', { min: 1, max: API_LIMITS.maxPage, default: 1 }),
  param('pageSize', 'integer', `Page size (clamped to 1..${API_LIMITS.maxPageSize}).`, {
    min: 1,
    max: API_LIMITS.maxPageSize,
    default: API_LIMITS.defaultPageSize,
  }),
];

const read = (path: string, operationId: string, summary: string, query: readonly QueryParamSpec[] = []): ApiRouteSpec => ({
  method: 'GET',
  path,
  auth: 'bearer',
  management: false,
  query,
  operationId,
  summary,
});
const manage = (action: string, operationId: string, summary: string): ApiRouteSpec => ({
  method: 'POST',
  path: `/management/tasks/{id}/${action}`,
  auth: 'bearer',
  management: true,
  query: [],
  operationId,
  summary,
});

/** Every operation of `ApiOperations` and its route. */
export const API_ROUTES = {
  'auth.login': {
    method: 'POST',
    path: '/auth/login',
    auth: 'credentials',
    management: false,
    query: [],
    body: ['username', 'password'],
    operationId: 'login',
    summary: 'Exchange username/password for a JWT (operate role with the management credential).',
  },
  'auth.magic': {
    method: 'POST',
    path: '/auth/magic',
    auth: 'credentials',
    management: false,
    query: [],
    body: ['token'],
    operationId: 'magicExchange',
    summary: 'Exchange the magic-link token for a read-only JWT (Cache-Control: no-store).',
  },
  'auth.magicQuery': {
    method: 'GET',
    path: '/auth/magic',
    auth: 'credentials',
    management: false,
    query: [param('token', 'string', 'The magic-link token.', { required: true })],
    operationId: 'magicExchangeQuery',
    summary: 'Deprecated query form of the magic-link exchange (adds Deprecation: true).',
    deprecated: true,
  },
  'auth.validate': {
    method: 'POST',
    path: '/auth/validate',
    auth: 'optional-bearer',
    management: false,
    query: [],
    body: ['token'],
    operationId: 'validateToken',
    summary: 'Validate a token (body, or the bearer); reports canManage.',
  },
  'config.get': {
    method: 'GET',
    path: '/config',
    auth: 'public',
    management: false,
    query: [],
    operationId: 'getConfig',
    summary: 'Runtime configuration.',
  },
  'health.get': {
    method: 'GET',
    path: '/health',
    auth: 'public',
    management: false,
    query: [],
    operationId: 'getHealth',
    summary: 'Whether the engine can write: ok, degraded or failed, with a reason.',
  },
  'tasks.list': read('/tasks', 'listTasks', 'Paged task list.', TASK_LIST_PARAMS),
  'tasks.counts': read('/tasks/counts', 'taskCounts', 'Counts by category.'),
  'tasks.get': read('/tasks/{id}', 'getTask', 'Task detail.'),
  'tasks.statusAudit': read('/tasks/{id}/status-audit', 'statusAudit', 'Page of status transitions, newest first.', PAGE_PARAMS),
  'tasks.runsAudit': read('/tasks/{id}/runs-audit', 'runsAudit', 'Page of runs, newest first.', PAGE_PARAMS),
  'tasks.occurrences': read('/tasks/{id}/occurrences', 'occurrences', 'Occurrences of a durable schedule, newest slot first.', [
    NON_TERMINAL_ONLY_PARAM,
    ...PAGE_PARAMS,
  ]),
  'tasks.executionLogs': read('/tasks/{id}/execution-logs', 'executionLogs', 'Page of execution logs by sequence number.', PAGE_PARAMS),
  'dashboard.overview': read('/dashboard/overview', 'dashboardOverview', 'Overview for a range.', [RANGE_PARAM, TIME_ZONE_PARAM]),
  'dashboard.recentActivity': read('/dashboard/recent-activity', 'recentActivity', 'Newest status transitions.', [LIMIT_PARAM]),
  'queues.list': read('/queues', 'listQueues', 'Metrics of all queues.'),
  'queues.tasks': read('/queues/{name}/tasks', 'listQueueTasks', 'Tasks of one queue.', QUEUE_TASK_LIST_PARAMS),
  'statistics.successRateTrend': read('/statistics/success-rate-trend', 'successRateTrend', 'Success-rate trend.', [PERIOD_PARAM, TIME_ZONE_PARAM]),
  'statistics.taskTypes': read('/statistics/task-types', 'taskTypes', 'Task types distribution.', [RANGE_PARAM, TIME_ZONE_PARAM]),
  'statistics.failureGroups': read('/statistics/failure-groups', 'failureGroups', 'Failed runs grouped by task type and exception fingerprint.', [
    RANGE_PARAM,
  ]),
  'statistics.executionTimes': read('/statistics/execution-times', 'executionTimes', 'Execution time statistics by type.', [RANGE_PARAM, TIME_ZONE_PARAM]),
  'audit.list': {
    ...read('/audit', 'listOperatorAudit', 'The operator audit trail (sign-ins, management actions and their refusals), newest first.', OPERATOR_AUDIT_PARAMS),
    role: 'operate',
  },
  'management.requeue': manage('requeue', 'requeueTask', 'Requeue a terminal (Failed or Cancelled) occurrence.'),
  'management.resume': manage('resume', 'resumeSchedule', 'Release a halted catch-up of a durable schedule.'),
  'management.cancel': manage('cancel', 'cancelSchedule', 'Cancel a durable schedule and its pending occurrences.'),
  'management.retry': manage('retry', 'retryTask', 'Retry a Failed, Cancelled or ServiceStopped one-shot task (back to Queued).'),
  'management.bulk': {
    method: 'POST',
    path: '/management/bulk/{action}',
    auth: 'bearer',
    management: true,
    query: [],
    body: ['filter', 'expectedCount'],
    operationId: 'bulkAction',
    summary: 'Requeue, retry or cancel every task a task-list filter matches, in background batches.',
  },
  'management.bulkStatus': {
    method: 'GET',
    path: '/management/bulk/{operationId}',
    auth: 'bearer',
    management: true,
    query: [],
    operationId: 'bulkStatus',
    summary: 'Progress of a bulk action.',
  },
} as const satisfies { readonly [Op in ApiOperation]: ApiRouteSpec };

export const API_OPERATIONS = Object.keys(API_ROUTES) as ApiOperation[];

/**
 * Routes of the monitoring outside the API base: their paths lie directly under `/svc-monitoring`.
 * The metrics scrape answers with the bearer of the read role, with the `metricsToken` option's
 * secret, or with nothing when the host turns authentication off. The probes need no token and
 * answer before the IP allow-list: an orchestrator probes from addresses an operator rarely lists.
 */
export const BASE_ROUTES = {
  'metrics.scrape': {
    method: 'GET',
    path: '/metrics',
    auth: 'bearer',
    management: false,
    query: [],
    operationId: 'getMetrics',
    summary: 'Prometheus metrics (text format 0.0.4, or OpenMetrics when the scraper asks for it).',
  },
  'health.live': {
    method: 'GET',
    path: '/health/live',
    auth: 'public',
    management: false,
    query: [],
    operationId: 'getLiveness',
    summary: 'Liveness probe: the process answers (200).',
  },
  'health.ready': {
    method: 'GET',
    path: '/health/ready',
    auth: 'public',
    management: false,
    query: [],
    operationId: 'getReadiness',
    summary: 'Readiness probe: storage reachable, migrations applied, not draining (200), else 503.',
  },
} as const satisfies Record<string, ApiRouteSpec>;
export type BaseOperation = keyof typeof BASE_ROUTES;

/** The names of a route's path parameters, in order (`/tasks/{id}` → `['id']`). */
export function pathParamsOf(path: string): string[] {
  return [...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1] as string);
}
