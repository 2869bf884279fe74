import {
  API_ROUTES,
  BASE_ROUTES,
  BULK_ACTIONS,
  BULK_FILTER_PARAMS,
  pathParamsOf,
  TASK_STATUSES,
  type ApiOperation,
  type BaseOperation,
  type ApiRouteSpec,
  type QueryParamSpec,
} from '../../contracts/index.js';
import * as answers from './answerSchemas.js';

const { componentSchema } = answers;

/**
 * OpenAPI 3.1 description of every endpoint, parameter and schema (API group "svc-monitoring").
 * Paths, methods, parameters and security come from the route catalogue; this file adds the
 * schemas and the answers of each operation. The schemas are printed from the zod schemas of
 * `answerSchemas.ts`, each checked against its contract type.
 */
type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const str: Json = { type: 'string' };
const int: Json = { type: 'integer' };
const ts: Json = { type: 'string', format: 'date-time' };
const guid: Json = { type: 'string', format: 'uuid' };
const arr = (items: Json): Json => ({ type: 'array', items });
const obj = (properties: Record<string, Json>, required: string[] = []): Json => ({ type: 'object', properties, required, additionalProperties: false });

/**
 * The components, each printed from its zod schema (answerSchemas.ts). BulkRequest is written
 * here: its filter is the GET /tasks query, printed from the route catalogue parameter by parameter.
 */
const schemas: Record<string, Json> = {
  TaskStatus: componentSchema(answers.taskStatusSchema),
  ProblemDetails: componentSchema(answers.problemDetailsSchema),
  TaskSummary: componentSchema(answers.taskSummarySchema),
  TaskPage: componentSchema(answers.taskPageSchema),
  StatusAuditEntry: componentSchema(answers.statusAuditEntrySchema),
  RunsAuditEntry: componentSchema(answers.runsAuditEntrySchema),
  ExecutionLogEntry: componentSchema(answers.executionLogEntrySchema),
  OccurrenceBlock: componentSchema(answers.occurrenceBlockSchema),
  HaltBlock: componentSchema(answers.haltBlockSchema),
  ScheduleDefinitionView: componentSchema(answers.scheduleDefinitionViewSchema),
  ResumeOutlook: componentSchema(answers.resumeOutlookSchema),
  TaskDetail: componentSchema(answers.taskDetailSchema),
  StatusAuditPage: componentSchema(answers.statusAuditPageSchema),
  RunsAuditPage: componentSchema(answers.runsAuditPageSchema),
  ExecutionLogPage: componentSchema(answers.executionLogPageSchema),
  OccurrenceListItem: componentSchema(answers.occurrenceListItemSchema),
  OccurrencePage: componentSchema(answers.occurrencePageSchema),
  TaskCounts: componentSchema(answers.taskCountsSchema),
  TasksOverTimePoint: componentSchema(answers.tasksOverTimePointSchema),
  QueueSummary: componentSchema(answers.queueSummarySchema),
  CatchUpBacklog: componentSchema(answers.catchUpBacklogSchema),
  DashboardOverview: componentSchema(answers.dashboardOverviewSchema),
  RecentActivityItem: componentSchema(answers.recentActivityItemSchema),
  QueueMetrics: componentSchema(answers.queueMetricsSchema),
  SuccessRatePoint: componentSchema(answers.successRatePointSchema),
  SuccessRateTrend: componentSchema(answers.successRateTrendSchema),
  TaskTypesDistribution: componentSchema(answers.taskTypesDistributionSchema),
  ExecutionTimesItem: componentSchema(answers.executionTimesItemSchema),
  BulkRequest: obj(
    {
      filter: {
        ...obj(Object.fromEntries(BULK_FILTER_PARAMS.map((p) => [p.name, { ...querySchema(p), description: p.description }]))),
        description: 'The GET /tasks filter parameters (no paging or sorting), checked by the same rules; statuses as an array.',
      },
      expectedCount: { ...int, minimum: 0, description: 'The count the user confirmed.' },
    },
    ['filter', 'expectedCount'],
  ),
  BulkOperation: componentSchema(answers.bulkOperationSchema),
  BulkCountMismatch: componentSchema(answers.bulkCountMismatchSchema),
  FailureGroups: componentSchema(answers.failureGroupsSchema),
  LoginRequest: componentSchema(answers.loginRequestSchema),
  LoginResponse: componentSchema(answers.loginResponseSchema),
  MagicRequest: componentSchema(answers.magicRequestSchema),
  MagicResponse: componentSchema(answers.magicResponseSchema),
  ValidateRequest: componentSchema(answers.validateRequestSchema),
  ValidateResponse: componentSchema(answers.validateResponseSchema),
  ManagementResponse: componentSchema(answers.managementResponseSchema),
  MonitoringConfig: componentSchema(answers.monitoringConfigSchema),
  HealthReport: componentSchema(answers.healthReportSchema),
  OperatorAuditEntry: componentSchema(answers.operatorAuditEntrySchema),
  OperatorAuditPage: componentSchema(answers.operatorAuditPageSchema),
  LivenessReport: componentSchema(answers.livenessReportSchema),
  ReadinessReport: componentSchema(answers.readinessReportSchema),
};

const json = (schema: Json, description = 'OK', headers?: Json): Json => ({ description, ...(headers ? { headers } : {}), content: { 'application/json': { schema } } });
const problem = (description: string, headers?: Json): Json => ({ description, ...(headers ? { headers } : {}), content: { 'application/problem+json': { schema: ref('ProblemDetails') } } });
const wwwAuth = { 'WWW-Authenticate': { schema: str, description: 'Bearer (expired: error="invalid_token").' } };
const retryAfter = { 'Retry-After': { schema: int, description: 'Seconds until the budget resets.' } };
const refused403 = problem('Client address not in the allow-list.');
const readErrors: Record<string, Json> = {
  '400': problem('A parameter is invalid (named in `errors`).'),
  '401': problem('Missing, invalid or expired bearer token.', wwwAuth),
  '403': refused403,
};
const unknownTask = { '404': problem('Unknown task.') };
const magicAnswers: Record<string, Json> = {
  '200': json(ref('MagicResponse')),
  '401': problem('Invalid magic token.'),
  '403': refused403,
  '404': problem('No magic token configured.'),
  '429': problem('Rate limit exhausted.', retryAfter),
};
const managementAnswers: Record<string, Json> = {
  '200': json(ref('ManagementResponse'), 'Succeeded'),
  '400': problem('Malformed id.'),
  '401': problem('Missing or invalid bearer token.', wwwAuth),
  '403': problem('Address, provenance or role refused.'),
  '404': json(ref('ManagementResponse'), 'NotFound (or management disabled: problem details).'),
  '409': json(ref('ManagementResponse'), 'Conflict'),
  '501': json(ref('ManagementResponse'), 'NotSupported (standalone registration)'),
  '503': json(ref('ManagementResponse'), 'Unavailable'),
};
const read = (schema: Json, extra: Record<string, Json> = {}): Record<string, Json> => ({ '200': json(schema), ...readErrors, ...extra });

interface OperationDoc {
  responses: Record<string, Json>;
  requestBody?: Json;
  description?: string;
}

/** What each operation answers (and, for POSTs, the body it reads). */
const OPERATION_DOCS: { [Op in ApiOperation]: OperationDoc } = {
  'auth.login': {
    requestBody: { required: true, content: { 'application/json': { schema: ref('LoginRequest') } } },
    responses: { '200': json(ref('LoginResponse')), '400': problem('Malformed body.'), '401': problem('Bad credentials.'), '403': refused403, '429': problem('Login rate limit exhausted.', retryAfter) },
  },
  'auth.magic': { requestBody: { required: true, content: { 'application/json': { schema: ref('MagicRequest') } } }, responses: magicAnswers },
  'auth.magicQuery': { responses: magicAnswers },
  'auth.validate': {
    requestBody: { required: false, content: { 'application/json': { schema: ref('ValidateRequest') } } },
    responses: { '200': json(ref('ValidateResponse')), ...readErrors },
  },
  'config.get': { responses: { '200': json(ref('MonitoringConfig')), '403': refused403 } },
  'health.get': { responses: { '200': json(ref('HealthReport')), '403': refused403, '503': json(ref('HealthReport'), 'The engine reports failed.') } },
  'tasks.list': { responses: read(ref('TaskPage')) },
  'tasks.counts': { responses: read(ref('TaskCounts')) },
  'tasks.get': { responses: read(ref('TaskDetail'), unknownTask) },
  'tasks.statusAudit': { responses: read(ref('StatusAuditPage'), unknownTask) },
  'tasks.runsAudit': { responses: read(ref('RunsAuditPage'), unknownTask) },
  'tasks.occurrences': { responses: read(ref('OccurrencePage'), unknownTask) },
  'tasks.executionLogs': { responses: read(ref('ExecutionLogPage'), unknownTask) },
  'dashboard.overview': { responses: read(ref('DashboardOverview')) },
  'dashboard.recentActivity': { responses: read(arr(ref('RecentActivityItem'))) },
  'queues.list': { responses: read(arr(ref('QueueMetrics'))) },
  'queues.tasks': { responses: read(ref('TaskPage')) },
  'statistics.successRateTrend': { responses: read(ref('SuccessRateTrend')) },
  'statistics.taskTypes': { responses: read(ref('TaskTypesDistribution')) },
  'statistics.executionTimes': { responses: read(arr(ref('ExecutionTimesItem'))) },
  'management.requeue': { responses: managementAnswers },
  'management.resume': { responses: managementAnswers },
  'management.cancel': { responses: managementAnswers },
  'management.retry': { responses: managementAnswers },
  'management.bulk': {
    requestBody: { required: true, content: { 'application/json': { schema: ref('BulkRequest') } } },
    description: 'A count off by more than 5 % of expectedCount answers 409 with the current count and does nothing.',
    responses: {
      '200': json(ref('BulkOperation'), 'Started (or nothing matched: count 0).'),
      '400': problem('A filter value or expectedCount is invalid (named in `errors`), or the filter matches too many rows.'),
      '401': problem('Missing or invalid bearer token.', wwwAuth),
      '403': problem('Address, provenance or role refused.'),
      '404': problem('Unknown action, or management disabled.'),
      '409': json(ref('BulkCountMismatch'), 'The count changed: confirm the new one.'),
      '501': json(ref('ManagementResponse'), 'NotSupported (standalone registration)'),
    },
  },
  'management.bulkStatus': {
    description:
      'Operations live in the memory of the process that runs them (the last 100 finished ones are kept): after a restart, or on another instance sharing a PostgreSQL database, the answer is 404. Each changed row keeps its own status-audit entry naming who changed it.',
    responses: {
      '200': json(ref('BulkOperation')),
      '400': problem('Malformed operation id.'),
      '401': problem('Missing or invalid bearer token.', wwwAuth),
      '403': problem('Address, provenance or role refused.'),
      '404': problem('No such operation in this process (operations are kept in memory: a restart forgets them), or management disabled.'),
    },
  },
  'statistics.failureGroups': { responses: read(ref('FailureGroups')) },
  'audit.list': {
    description:
      'Needs the operate role (or the managementAuthorization hook when the host set one). One record per sign-in (success or failure), per management action and per refusal of one; a bulk action\'s record carries its filter and, once the operation ends, the counts it reached. Records are kept operatorAuditRetentionDays days (default 90); the API never changes or deletes one.',
    responses: {
      ...read(ref('OperatorAuditPage')),
      '403': problem('Address refused, or the session lacks the operate role.'),
      '501': problem('The store keeps no operator audit (an older SQLite schema).'),
    },
  },
};

const MANAGEMENT_DESCRIPTION =
  'Exists only with enableManagementEndpoints (404 otherwise). Checked in order: IP allow-list, provenance, authorization hook or operate role.';

const PATH_PARAMS: Record<string, Json> = {
  id: { name: 'id', in: 'path', required: true, schema: guid, description: 'Task id (GUID).' },
  name: { name: 'name', in: 'path', required: true, schema: str, description: 'Queue name.' },
  operationId: { name: 'operationId', in: 'path', required: true, schema: guid, description: 'Bulk operation id (GUID).' },
};

function querySchema(p: QueryParamSpec): Json {
  const base: Json =
    p.kind === 'boolean'
      ? { type: 'boolean' }
      : p.kind === 'integer'
        ? { type: 'integer', ...(p.min !== undefined ? { minimum: p.min } : {}), ...(p.max !== undefined ? { maximum: p.max } : {}) }
        : p.kind === 'date'
          ? ts
          : p.kind === 'guid'
            ? guid
            : p.kind === 'enum'
              ? { type: 'string', enum: [...(p.values ?? [])] }
              : p.kind === 'enumList'
                ? arr(p.values === TASK_STATUSES ? ref('TaskStatus') : { type: 'string', enum: [...(p.values ?? [])] })
                : { type: 'string' };
  const withExamples = p.examples ? { ...base, examples: [...p.examples] } : base;
  return p.default !== undefined ? { ...withExamples, default: p.default } : withExamples;
}

function queryParameter(p: QueryParamSpec): Json {
  return {
    name: p.name,
    in: 'query',
    required: p.required === true,
    schema: querySchema(p),
    description: p.description,
    ...(p.kind === 'enumList' ? { style: 'form', explode: true } : {}),
  };
}

/**
 * Path parameters whose values are a fixed set are documented as one literal path per value:
 * `POST /management/bulk/{action}` and `GET /management/bulk/{operationId}` would otherwise be
 * two templates of the same shape, which OpenAPI 3.1 forbids (a client could not tell them apart).
 */
const LITERAL_PATH_PARAMS: Readonly<Record<string, readonly string[]>> = { action: BULK_ACTIONS };

/** One documented path of a catalogue route: its text, and the fixed value it stands for, if any. */
export interface DocumentedPath {
  path: string;
  operationId: string;
  fixed?: { name: string; value: string };
}

/** The documented path(s) of a route: itself, or one literal path per value of a fixed-set parameter. */
export function documentedPathsOf(route: ApiRouteSpec): DocumentedPath[] {
  const name = pathParamsOf(route.path).find((p) => LITERAL_PATH_PARAMS[p] !== undefined);
  if (name === undefined) return [{ path: route.path, operationId: route.operationId }];
  return (LITERAL_PATH_PARAMS[name] ?? []).map((value) => ({
    path: route.path.replace(`{${name}}`, value),
    operationId: `${route.operationId}${value.charAt(0).toUpperCase()}${value.slice(1)}`,
    fixed: { name, value },
  }));
}

function operationObject(operation: ApiOperation, route: ApiRouteSpec, documented: DocumentedPath): Json {
  const doc = OPERATION_DOCS[operation];
  const parameters = [
    ...pathParamsOf(documented.path).map((name) => PATH_PARAMS[name] ?? { name, in: 'path', required: true, schema: str }),
    ...route.query.map(queryParameter),
  ];
  // A management operation states the gate first, then what is particular to it.
  const description = route.management ? [MANAGEMENT_DESCRIPTION, doc.description].filter(Boolean).join(' ') : doc.description;
  return {
    tags: ['svc-monitoring'],
    operationId: documented.operationId,
    summary: documented.fixed ? `${route.summary} (${documented.fixed.value})` : route.summary,
    ...(description ? { description } : {}),
    ...(route.deprecated ? { deprecated: true } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    security: route.auth === 'bearer' || route.auth === 'optional-bearer' ? [{ bearer: [] }] : [],
    ...(doc.requestBody ? { requestBody: doc.requestBody } : {}),
    responses: doc.responses,
  };
}

/** Descriptions and answers of the routes outside the API base. */
const BASE_DOCS: Record<BaseOperation, { description: string; responses: Json }> = {
  'metrics.scrape': {
    description:
      'Counters and histograms are per process (label engine_instance); gauges read from the store are global. The bearer is a login token or the metricsToken option; with authentication off the allow-list alone applies.',
    responses: {
      '200': { description: 'The scrape.', content: { 'text/plain': { schema: str }, 'application/openmetrics-text': { schema: str } } },
      '401': problem('Missing or invalid bearer (login token or metrics token).', wwwAuth),
      '403': refused403,
      '404': problem('Metrics are turned off (enableMetrics false).'),
    },
  },
  'health.live': {
    description: 'No token, no allow-list: 200 whenever the process answers HTTP. A liveness probe.',
    responses: { '200': json(ref('LivenessReport')) },
  },
  'health.ready': {
    description:
      'No token, no allow-list. 200 when the storage answers (within 2 s), has every migration of this version, the process is not draining (SIGTERM turns this off first) and the engine has not failed; 503 otherwise, with the same body saying which. A readiness probe.',
    responses: { '200': json(ref('ReadinessReport')), '503': json(ref('ReadinessReport'), 'Not ready: the body says which check failed.') },
  },
};

/** The `paths` object: one entry per documented path, one operation per method. */
function buildPaths(): Record<string, Json> {
  const paths: Record<string, Json> = {};
  for (const [operation, route] of Object.entries(API_ROUTES) as Array<[ApiOperation, ApiRouteSpec]>) {
    for (const documented of documentedPathsOf(route)) {
      const item = (paths[documented.path] ??= {});
      item[route.method.toLowerCase()] = operationObject(operation, route, documented);
    }
  }
  // Routes outside the API base name their own server (the monitoring's base path).
  for (const [operation, route] of Object.entries(BASE_ROUTES) as Array<[BaseOperation, ApiRouteSpec]>) {
    paths[route.path] = {
      servers: [{ url: '/svc-monitoring' }],
      [route.method.toLowerCase()]: {
        tags: ['svc-monitoring'],
        operationId: route.operationId,
        summary: route.summary,
        security: route.auth === 'bearer' ? [{ bearer: [] }] : [],
        ...BASE_DOCS[operation],
      },
    };
  }
  return paths;
}

export function buildOpenApiDocument(): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Svc Monitor API',
      version: '4.0.0',
      description: 'Monitoring REST API of the task engine (read-only, plus three management endpoints). Fields whose value is null are omitted.',
    },
    servers: [{ url: '/svc-monitoring/api' }],
    tags: [{ name: 'svc-monitoring', description: 'The monitoring service API group.' }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas,
    },
    paths: buildPaths(),
  };
}
