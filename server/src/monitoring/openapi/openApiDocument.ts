import {
  API_ROUTES,
  BASE_ROUTES,
  BULK_ACTIONS,
  DASHBOARD_RANGES,
  pathParamsOf,
  TASK_STATUSES,
  TREND_PERIODS,
  type ApiOperation,
  type ApiRouteSpec,
  type QueryParamSpec,
} from '../../contracts/index.js';
import {
  componentSchema,
  loginRequestSchema,
  loginResponseSchema,
  magicResponseSchema,
  queueMetricsSchema,
  taskCountsSchema,
  taskPageSchema,
  taskSummarySchema,
  validateResponseSchema,
} from './answerSchemas.js';

/**
 * OpenAPI 3.1 description of every endpoint, parameter and schema (API group "svc-monitoring").
 * Paths, methods, parameters and security come from the route catalogue; this file adds the
 * schemas and the answers of each operation. The schemas of `answerSchemas.ts` are derived from
 * the zod schemas the handlers use; the others are written here.
 */
type Json = Record<string, unknown>;

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const str: Json = { type: 'string' };
const int: Json = { type: 'integer' };
const num: Json = { type: 'number' };
const bool: Json = { type: 'boolean' };
const ts: Json = { type: 'string', format: 'date-time' };
const guid: Json = { type: 'string', format: 'uuid' };
const arr = (items: Json): Json => ({ type: 'array', items });
const obj = (properties: Record<string, Json>, required: string[] = []): Json => ({ type: 'object', properties, required, additionalProperties: false });


/** The summary's properties, which the detail repeats. */
const summaryProps = componentSchema(taskSummarySchema).properties as Record<string, Json>;

const schemas: Record<string, Json> = {
  TaskStatus: { type: 'string', enum: [...TASK_STATUSES] },
  ProblemDetails: {
    type: 'object',
    description: 'RFC 9457 problem details.',
    properties: { type: str, title: str, status: int, detail: str, instance: str, errors: { type: 'object', additionalProperties: arr(str) } },
    required: ['type', 'title', 'status'],
  },
  TaskSummary: componentSchema(taskSummarySchema),
  TaskPage: componentSchema(taskPageSchema),
  StatusAuditEntry: obj({ id: int, queuedTaskId: guid, updatedAtUtc: ts, newStatus: ref('TaskStatus'), exception: str }, ['id', 'queuedTaskId', 'updatedAtUtc', 'newStatus']),
  RunsAuditEntry: obj(
    { id: int, queuedTaskId: guid, executedAt: ts, executionTimeMs: num, status: { type: 'string', enum: ['Completed', 'Failed'] }, exception: str },
    ['id', 'queuedTaskId', 'executedAt', 'executionTimeMs', 'status'],
  ),
  ExecutionLogEntry: obj(
    { id: int, taskId: guid, timestampUtc: ts, level: { type: 'string', enum: ['Trace', 'Debug', 'Information', 'Warning', 'Error'] }, message: str, exceptionDetails: str, sequenceNumber: int },
    ['id', 'taskId', 'timestampUtc', 'level', 'message', 'sequenceNumber'],
  ),
  OccurrenceBlock: obj(
    { slotUtc: ts, runNumber: int, timeZoneId: str, misfireKind: { type: 'string', enum: ['OnTime', 'CatchUp'] }, missedFromUtc: ts, missedThroughUtc: ts, missedCount: int, missedCountIsExact: bool },
    ['slotUtc', 'runNumber', 'misfireKind'],
  ),
  HaltBlock: obj({ atUtc: ts, reason: str, detectedAtLeast: int, isExact: bool, cursorUtc: ts, scheduleVersion: int }, ['atUtc', 'reason', 'detectedAtLeast', 'isExact', 'scheduleVersion']),
  ScheduleDefinitionView: obj(
    {
      cron: str,
      everyMs: num,
      anchorUtc: { ...ts, description: 'Interval schedules: slot k is anchorUtc + k·everyMs.' },
      timeZone: str,
      misfirePolicy: { type: 'string', enum: ['ReplayAll', 'SkipOldest', 'Collapse', 'Skip'] },
      misfireWindowMs: num,
      overflowCap: int,
      startAtUtc: ts,
      untilUtc: ts,
      maxRuns: int,
    },
    ['timeZone', 'misfirePolicy', 'misfireWindowMs', 'overflowCap'],
  ),
  ResumeOutlook: obj(
    {
      missedSlots: { ...int, description: 'Slots between the halt cursor and now.' },
      missedSlotsIsExact: bool,
      slotsInWindow: { ...int, description: 'Of those, the slots inside the misfire window (the ones resume plans).' },
      slotsInWindowIsExact: bool,
      behindSeconds: int,
      outcome: { type: 'string', enum: ['HaltsAgain', 'Replays'] },
      replayCount: int,
      skipCount: int,
      capNeeded: { ...int, description: 'ReplayAll: the smallest overflowCap that lets the current backlog through.' },
    },
    ['missedSlots', 'missedSlotsIsExact', 'slotsInWindow', 'slotsInWindowIsExact', 'behindSeconds', 'outcome', 'replayCount', 'skipCount'],
  ),
  TaskDetail: obj(
    {
      ...summaryProps,
      handler: str,
      request: { type: 'string', description: 'Serialized request (JSON text).' },
      taskKey: str,
      statusAudits: arr(ref('StatusAuditEntry')),
      runsAudits: arr(ref('RunsAuditEntry')),
      statusAuditsTotalCount: int,
      runsAuditsTotalCount: int,
      occurrence: ref('OccurrenceBlock'),
      halt: ref('HaltBlock'),
      executionLogs: arr(ref('ExecutionLogEntry')),
      executionLogsTotalCount: int,
      exception: str,
      throttledUntilUtc: ts,
      auditLevel: { type: 'string', enum: ['Full', 'ErrorsOnly', 'None'] },
      scheduleDefinition: { ...ref('ScheduleDefinitionView'), description: 'Additive (not in the spec): the definition of a durable schedule, on its schedule row.' },
      traceId: { ...str, description: 'Additive: the OpenTelemetry trace id of the dispatch that created the task (stored when a tracer provider was registered).' },
      resumeOutlook: { ...ref('ResumeOutlook'), description: 'Additive: on a halted schedule, a dry run of resume against the current definition.' },
    },
    ['id', 'type', 'status', 'queueName', 'createdAtUtc', 'isRecurring', 'handler', 'request', 'statusAudits', 'runsAudits', 'statusAuditsTotalCount', 'runsAuditsTotalCount', 'executionLogs', 'executionLogsTotalCount', 'auditLevel'],
  ),
  StatusAuditPage: obj({ audits: arr(ref('StatusAuditEntry')), totalCount: int, skip: int, take: int }, ['audits', 'totalCount', 'skip', 'take']),
  RunsAuditPage: obj({ audits: arr(ref('RunsAuditEntry')), totalCount: int, skip: int, take: int }, ['audits', 'totalCount', 'skip', 'take']),
  ExecutionLogPage: obj({ logs: arr(ref('ExecutionLogEntry')), totalCount: int, skip: int, take: int }, ['logs', 'totalCount', 'skip', 'take']),
  OccurrenceListItem: obj(
    { id: guid, parentTaskId: guid, status: ref('TaskStatus'), occurrence: ref('OccurrenceBlock'), createdAtUtc: ts, lastExecutionUtc: ts, startedAtUtc: ts, executionTimeMs: num, scheduleVersion: int,
      runDurationMs: { ...num, description: 'Additive: wall-clock length of the last run from its audited start and end, also for a failed run (executionTimeMs 0).' } },
    ['id', 'parentTaskId', 'status', 'occurrence', 'createdAtUtc'],
  ),
  OccurrencePage: obj({ occurrences: arr(ref('OccurrenceListItem')), totalCount: int, skip: int, take: int }, ['occurrences', 'totalCount', 'skip', 'take']),
  TaskCounts: componentSchema(taskCountsSchema),
  TasksOverTimePoint: obj({ timestamp: ts, completed: int, failed: int, total: int }, ['timestamp', 'completed', 'failed', 'total']),
  QueueSummary: obj(
    {
      queueName: str,
      pendingCount: int,
      inProgressCount: int,
      completedCount: int,
      failedCount: int,
      throttledCount: int,
      recurringWaitingCount: {
        ...int,
        description: 'Additive: the part of pendingCount that is not work (durable-schedule definitions and inline recurring rows waiting for their next run).',
      },
      reservedCount: { ...int, description: 'Additive: of pendingCount, the Queued rows an engine instance has reserved (taken ahead of a free worker; not started).' },
    },
    ['queueName', 'pendingCount', 'inProgressCount', 'completedCount', 'failedCount', 'throttledCount'],
  ),
  CatchUpBacklog: obj(
    { pending: int, active: int, failed: int, skipped: int, completed: int, oldestPendingSlotUtc: ts, lagSeconds: int, haltedSchedules: int },
    ['pending', 'active', 'failed', 'skipped', 'completed', 'lagSeconds', 'haltedSchedules'],
  ),
  DashboardOverview: obj(
    {
      totalTasksToday: int,
      totalTasksWeek: int,
      successRate: num,
      failedCount: int,
      avgExecutionTimeMs: num,
      statusDistribution: { type: 'object', additionalProperties: int },
      tasksOverTime: arr(ref('TasksOverTimePoint')),
      queueSummaries: arr(ref('QueueSummary')),
      throttledTasks: int,
      catchUpBacklog: ref('CatchUpBacklog'),
      window: {
        ...obj({ timeZone: str, fromUtc: ts, toUtc: ts }, ['timeZone', 'toUtc']),
        description: 'Additive: the window the range covered (fromUtc absent for All); with timeZone, the zone calendar window shared by every figure of the response.',
      },
    },
    ['totalTasksToday', 'totalTasksWeek', 'successRate', 'failedCount', 'avgExecutionTimeMs', 'statusDistribution', 'tasksOverTime', 'queueSummaries', 'throttledTasks', 'catchUpBacklog'],
  ),
  RecentActivityItem: obj({ taskId: guid, taskType: str, status: ref('TaskStatus'), timestamp: ts, message: str }, ['taskId', 'taskType', 'status', 'timestamp', 'message']),
  QueueMetrics: componentSchema(queueMetricsSchema),
  SuccessRatePoint: obj({ timestamp: ts, successRate: num, totalTasks: int, successfulTasks: int, failedTasks: int }, ['timestamp', 'successRate', 'totalTasks', 'successfulTasks', 'failedTasks']),
  SuccessRateTrend: obj({ period: { type: 'string', enum: [...TREND_PERIODS] }, dataPoints: arr(ref('SuccessRatePoint')) }, ['period', 'dataPoints']),
  TaskTypesDistribution: { type: 'object', additionalProperties: int, description: 'Full task type name → tasks created in the range.' },
  ExecutionTimesItem: obj(
    { taskType: str, averageExecutionTime: num, minExecutionTime: num, maxExecutionTime: num, taskCount: int },
    ['taskType', 'averageExecutionTime', 'minExecutionTime', 'maxExecutionTime', 'taskCount'],
  ),
  BulkRequest: obj(
    {
      filter: { type: 'object', description: 'The GET /tasks filter parameters (no paging or sorting): JSON strings, booleans, numbers; statuses as an array.' },
      expectedCount: { ...int, minimum: 0, description: 'The count the user confirmed.' },
    },
    ['filter', 'expectedCount'],
  ),
  BulkOperation: obj(
    {
      operationId: guid,
      action: { type: 'string', enum: [...BULK_ACTIONS] },
      state: { type: 'string', enum: ['Running', 'Completed', 'Failed'] },
      count: int,
      processed: int,
      succeeded: int,
      skipped: int,
      startedAtUtc: ts,
      finishedAtUtc: ts,
      requestedBy: str,
      error: str,
    },
    ['operationId', 'action', 'state', 'count', 'processed', 'succeeded', 'skipped', 'startedAtUtc'],
  ),
  BulkCountMismatch: obj({ status: { type: 'string', enum: ['Conflict'] }, message: str, expectedCount: int, count: int }, ['status', 'message', 'expectedCount', 'count']),
  FailureGroups: obj(
    {
      range: { type: 'string', enum: [...DASHBOARD_RANGES] },
      groups: arr(
        obj(
          { taskType: str, fingerprint: str, count: int, firstSeenUtc: ts, lastSeenUtc: ts, sampleTaskId: guid },
          ['taskType', 'fingerprint', 'count', 'firstSeenUtc', 'lastSeenUtc', 'sampleTaskId'],
        ),
      ),
    },
    ['range', 'groups'],
  ),
  LoginRequest: componentSchema(loginRequestSchema),
  LoginResponse: componentSchema(loginResponseSchema),
  MagicRequest: obj({ token: str }, ['token']),
  MagicResponse: componentSchema(magicResponseSchema),
  ValidateRequest: obj({ token: str }),
  ValidateResponse: componentSchema(validateResponseSchema),
  ManagementResponse: obj(
    { status: { type: 'string', enum: ['Succeeded', 'NotFound', 'Conflict', 'NotSupported', 'Unavailable'] }, message: str, taskId: guid, nextRunUtc: ts, releasedHalt: bool },
    ['status', 'message', 'taskId'],
  ),
  MonitoringConfig: obj(
    { apiBasePath: str, uiBasePath: str, signalRHubPath: str, requireAuthentication: bool, uiEnabled: bool, managementEnabled: bool, eventDebounceMs: int },
    ['apiBasePath', 'uiBasePath', 'signalRHubPath', 'requireAuthentication', 'uiEnabled', 'managementEnabled', 'eventDebounceMs'],
  ),
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
  'health.get': {
    responses: {
      '200': json({
        type: 'object',
        required: ['status'],
        properties: { status: { type: 'string', enum: ['ok', 'degraded', 'failed'] }, reason: { type: 'string' } },
        additionalProperties: false,
      }),
      '403': refused403,
    },
  },
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
  for (const route of Object.values(BASE_ROUTES)) {
    paths[route.path] = {
      servers: [{ url: '/svc-monitoring' }],
      [route.method.toLowerCase()]: {
        tags: ['svc-monitoring'],
        operationId: route.operationId,
        summary: route.summary,
        description:
          'Counters and histograms are per process (label engine_instance); gauges read from the store are global. The bearer is a login token or the metricsToken option; with authentication off the allow-list alone applies.',
        security: [{ bearer: [] }],
        responses: {
          '200': { description: 'The scrape.', content: { 'text/plain': { schema: str }, 'application/openmetrics-text': { schema: str } } },
          '401': problem('Missing or invalid bearer (login token or metrics token).', wwwAuth),
          '403': refused403,
          '404': problem('Metrics are turned off (enableMetrics false).'),
        },
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
