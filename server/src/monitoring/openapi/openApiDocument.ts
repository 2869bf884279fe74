import { TASK_STATUSES } from '../../contracts/index.js';
import { SORT_FIELDS } from '../http/taskListQuery.js';

/** OpenAPI 3.1 description of every endpoint, parameter and schema (§1; API group "svc-monitoring"). */
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

const RANGES = ['Today', 'Week', 'Month', 'All'];
const PERIODS = ['Last7Days', 'Last30Days', 'Last90Days'];

const summaryProps: Record<string, Json> = {
  id: guid,
  type: { type: 'string', description: 'Short type name in lists; full name in the detail.' },
  status: ref('TaskStatus'),
  queueName: str,
  createdAtUtc: ts,
  lastExecutionUtc: { ...ts, description: 'End of the last run.' },
  startedAtUtc: { ...ts, description: 'Start of the last (or current) run; absent per §2.1 rule 4.' },
  scheduledExecutionUtc: ts,
  isRecurring: bool,
  executionTimeMs: num,
  parentTaskId: guid,
  occurrenceMode: { type: 'string', enum: ['Durable'] },
  misfirePolicy: { type: 'string', enum: ['ReplayAll', 'SkipOldest', 'Collapse', 'Skip'] },
  timeZoneId: str,
  scheduleVersion: int,
  nominalSlotUtc: ts,
  misfireKind: { type: 'string', enum: ['OnTime', 'CatchUp'] },
  runDurationMs: {
    ...num,
    description:
      'Additive (not in the spec): wall-clock length of the last finished run in ms, from its InProgress and end status-audit timestamps; present when the start was audited (audit level Full), also for a failed or timed-out run whose executionTimeMs reads 0.',
  },
  errorSummary: { ...str, description: 'Additive: first line of the last error (at most 200 characters), on a row that has one.' },
};

const schemas: Record<string, Json> = {
  TaskStatus: { type: 'string', enum: [...TASK_STATUSES] },
  ProblemDetails: {
    type: 'object',
    description: 'RFC 9457 problem details.',
    properties: { type: str, title: str, status: int, detail: str, instance: str, errors: { type: 'object', additionalProperties: arr(str) } },
    required: ['type', 'title', 'status'],
  },
  TaskSummary: obj(summaryProps, ['id', 'type', 'status', 'queueName', 'createdAtUtc', 'isRecurring']),
  TaskPage: obj({ items: arr(ref('TaskSummary')), totalCount: int, page: int, pageSize: int, totalPages: int }, ['items', 'totalCount', 'page', 'pageSize', 'totalPages']),
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
      resumeOutlook: { ...ref('ResumeOutlook'), description: 'Additive: on a halted schedule, a dry run of resume against the current definition.' },
    },
    ['id', 'type', 'status', 'queueName', 'createdAtUtc', 'isRecurring', 'handler', 'request', 'statusAudits', 'runsAudits', 'statusAuditsTotalCount', 'runsAuditsTotalCount', 'executionLogs', 'executionLogsTotalCount', 'auditLevel'],
  ),
  StatusAuditPage: obj({ audits: arr(ref('StatusAuditEntry')), totalCount: int, skip: int, take: int }, ['audits', 'totalCount', 'skip', 'take']),
  RunsAuditPage: obj({ audits: arr(ref('RunsAuditEntry')), totalCount: int, skip: int, take: int }, ['audits', 'totalCount', 'skip', 'take']),
  ExecutionLogPage: obj({ logs: arr(ref('ExecutionLogEntry')), totalCount: int, skip: int, take: int }, ['logs', 'totalCount', 'skip', 'take']),
  OccurrenceListItem: obj(
    { id: guid, parentTaskId: guid, status: ref('TaskStatus'), occurrence: ref('OccurrenceBlock'), createdAtUtc: ts, lastExecutionUtc: ts, startedAtUtc: ts, executionTimeMs: num, scheduleVersion: int },
    ['id', 'parentTaskId', 'status', 'occurrence', 'createdAtUtc'],
  ),
  OccurrencePage: obj({ occurrences: arr(ref('OccurrenceListItem')), totalCount: int, skip: int, take: int }, ['occurrences', 'totalCount', 'skip', 'take']),
  TaskCounts: obj({ all: int, standard: int, recurring: int, failed: int, occurrences: int }, ['all', 'standard', 'recurring', 'failed', 'occurrences']),
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
  QueueMetrics: obj(
    { queueName: str, totalTasks: int, queuedTasks: int, inProgressTasks: int, completedTasks: int, failedTasks: int, cancelledTasks: int, successRate: num },
    ['queueName', 'totalTasks', 'queuedTasks', 'inProgressTasks', 'completedTasks', 'failedTasks', 'cancelledTasks', 'successRate'],
  ),
  SuccessRatePoint: obj({ timestamp: ts, successRate: num, totalTasks: int, successfulTasks: int, failedTasks: int }, ['timestamp', 'successRate', 'totalTasks', 'successfulTasks', 'failedTasks']),
  SuccessRateTrend: obj({ period: { type: 'string', enum: PERIODS }, dataPoints: arr(ref('SuccessRatePoint')) }, ['period', 'dataPoints']),
  TaskTypesDistribution: { type: 'object', additionalProperties: int, description: 'Full task type name → tasks created in the range.' },
  ExecutionTimesItem: obj(
    { taskType: str, averageExecutionTime: num, minExecutionTime: num, maxExecutionTime: num, taskCount: int },
    ['taskType', 'averageExecutionTime', 'minExecutionTime', 'maxExecutionTime', 'taskCount'],
  ),
  LoginRequest: obj({ username: str, password: str }, ['username', 'password']),
  LoginResponse: obj({ token: str, expiresAt: ts, username: str, canManage: bool }, ['token', 'expiresAt', 'username', 'canManage']),
  MagicRequest: obj({ token: str }, ['token']),
  MagicResponse: obj({ token: str, expiresAt: ts, username: str }, ['token', 'expiresAt', 'username']),
  ValidateRequest: obj({ token: str }),
  ValidateResponse: obj({ isValid: bool, username: str, expiresAt: ts, canManage: bool }, ['isValid', 'username', 'canManage']),
  ManagementResponse: obj(
    { status: { type: 'string', enum: ['Succeeded', 'NotFound', 'Conflict', 'NotSupported', 'Unavailable'] }, message: str, taskId: guid, nextRunUtc: ts, releasedHalt: bool },
    ['status', 'message', 'taskId'],
  ),
  MonitoringConfig: obj(
    { apiBasePath: str, uiBasePath: str, signalRHubPath: str, requireAuthentication: bool, uiEnabled: bool, managementEnabled: bool, eventDebounceMs: int },
    ['apiBasePath', 'uiBasePath', 'signalRHubPath', 'requireAuthentication', 'uiEnabled', 'managementEnabled', 'eventDebounceMs'],
  ),
};

const q = (name: string, schema: Json, description: string, extra: Json = {}): Json => ({ name, in: 'query', required: false, schema, description, ...extra });
const idParam: Json = { name: 'id', in: 'path', required: true, schema: guid, description: 'Task id (GUID).' };
const skipTake = (max = 500): Json[] => [
  q('skip', { type: 'integer', default: 0, minimum: 0 }, 'Entries to skip (clamped to ≥ 0).'),
  q('take', { type: 'integer', default: 100, minimum: 0, maximum: max }, `Entries to return (clamped to 0..${max}; 0 returns the total alone).`),
];
const rangeParam = q('range', { type: 'string', enum: RANGES, default: 'Today' }, 'D11 range over createdAtUtc.');
const timeZoneParam = q(
  'timeZone',
  { type: 'string', examples: ['America/Los_Angeles', 'UTC'] },
  "Additive (not in the spec): an IANA time zone. Ranges then follow the zone's calendar: Today = since local midnight, Week = the last 7 local days, Month = the last 30, and chart or trend buckets start at local midnights (hours for Today), so every figure of one response covers the same window. Absent: the spec's UTC ranges. Unknown zone → 400.",
);
const taskListParams: Json[] = [
  q('statuses', arr(ref('TaskStatus')), 'Status names; repeat the parameter (or separate with commas).', { style: 'form', explode: true }),
  q('queueName', str, 'Exact queue name.'),
  q('taskType', str, 'Partial, case-insensitive match on the type name.'),
  q('isRecurring', bool, 'Recurring rows only (true) or one-shots only (false).'),
  q('createdAfter', ts, 'Created at or after (ISO 8601; no zone = UTC).'),
  q('createdBefore', ts, 'Created at or before (ISO 8601; no zone = UTC).'),
  q('searchTerm', str, 'Partial match on type, handler or task key.'),
  q('parentTaskId', guid, 'Only occurrences of this durable schedule.'),
  q('onlyOccurrences', bool, 'true: only materialized occurrences; false: only rows that are not one.'),
  q('onlyCatchUp', bool, 'true: only CatchUp occurrences; false: only rows standing for no missed work.'),
  q('sortBy', { type: 'string', enum: [...SORT_FIELDS], default: 'CreatedAtUtc' }, 'Sort field (case-insensitive); other values → 400.'),
  q('sortDescending', { type: 'boolean', default: true }, 'Sort direction.'),
  q('page', { type: 'integer', default: 1, minimum: 1 }, 'Page number (clamped to ≥ 1).'),
  q('pageSize', { type: 'integer', default: 20, minimum: 1, maximum: 500 }, 'Page size (clamped to 1..500).'),
];

const json = (schema: Json, description = 'OK', headers?: Json): Json => ({ description, ...(headers ? { headers } : {}), content: { 'application/json': { schema } } });
const problem = (description: string, headers?: Json): Json => ({ description, ...(headers ? { headers } : {}), content: { 'application/problem+json': { schema: ref('ProblemDetails') } } });
const wwwAuth = { 'WWW-Authenticate': { schema: str, description: 'Bearer (expired: error="invalid_token").' } };
const common = {
  '400': problem('A parameter is invalid (named in `errors`).'),
  '401': problem('Missing, invalid or expired bearer token.', wwwAuth),
  '403': problem('Client address not in the allow-list.'),
};
const read = (operationId: string, summary: string, schema: Json, parameters: Json[] = [], extra: Record<string, Json> = {}): Json => ({
  get: { tags: ['svc-monitoring'], operationId, summary, parameters, security: [{ bearer: [] }], responses: { '200': json(schema), ...common, ...extra } },
});
const retryAfter = { 'Retry-After': { schema: int, description: 'Seconds until the budget resets.' } };
const mgmt = (operationId: string, summary: string): Json => ({
  post: {
    tags: ['svc-monitoring'],
    operationId,
    summary,
    description: 'Exists only with enableManagementEndpoints (404 otherwise). Order (D12): IP allow-list, provenance, authorization hook or operate role.',
    parameters: [idParam],
    security: [{ bearer: [] }],
    responses: {
      '200': json(ref('ManagementResponse'), 'Succeeded'),
      '400': problem('Malformed id.'),
      '401': problem('Missing or invalid bearer token.', wwwAuth),
      '403': problem('Address, provenance or role refused.'),
      '404': json(ref('ManagementResponse'), 'NotFound (or management disabled: problem details).'),
      '409': json(ref('ManagementResponse'), 'Conflict'),
      '501': json(ref('ManagementResponse'), 'NotSupported (standalone registration)'),
      '503': json(ref('ManagementResponse'), 'Unavailable'),
    },
  },
});

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
    paths: {
      '/auth/login': {
        post: {
          tags: ['svc-monitoring'],
          operationId: 'login',
          summary: 'Exchange username/password for a JWT (operate role with the management credential).',
          security: [],
          requestBody: { required: true, content: { 'application/json': { schema: ref('LoginRequest') } } },
          responses: { '200': json(ref('LoginResponse')), '400': problem('Malformed body.'), '401': problem('Bad credentials.'), '403': common['403'], '429': problem('Login rate limit exhausted.', retryAfter) },
        },
      },
      '/auth/magic': {
        post: {
          tags: ['svc-monitoring'],
          operationId: 'magicExchange',
          summary: 'Exchange the magic-link token for a read-only JWT (Cache-Control: no-store).',
          security: [],
          requestBody: { required: true, content: { 'application/json': { schema: ref('MagicRequest') } } },
          responses: { '200': json(ref('MagicResponse')), '401': problem('Invalid magic token.'), '403': common['403'], '404': problem('No magic token configured.'), '429': problem('Rate limit exhausted.', retryAfter) },
        },
        get: {
          tags: ['svc-monitoring'],
          operationId: 'magicExchangeQuery',
          deprecated: true,
          summary: 'Deprecated query form of the magic-link exchange (adds Deprecation: true).',
          security: [],
          parameters: [q('token', str, 'The magic-link token.', { required: true })],
          responses: { '200': json(ref('MagicResponse')), '401': problem('Invalid magic token.'), '403': common['403'], '404': problem('No magic token configured.'), '429': problem('Rate limit exhausted.', retryAfter) },
        },
      },
      '/auth/validate': {
        post: {
          tags: ['svc-monitoring'],
          operationId: 'validateToken',
          summary: 'Validate a token (body, or the bearer); reports canManage (D8).',
          security: [{ bearer: [] }],
          requestBody: { required: false, content: { 'application/json': { schema: ref('ValidateRequest') } } },
          responses: { '200': json(ref('ValidateResponse')), ...common },
        },
      },
      '/config': {
        get: { tags: ['svc-monitoring'], operationId: 'getConfig', summary: 'Runtime configuration.', security: [], responses: { '200': json(ref('MonitoringConfig')), '403': common['403'] } },
      },
      '/tasks': read('listTasks', 'Paged task list.', ref('TaskPage'), taskListParams),
      '/tasks/counts': read('taskCounts', 'Counts by category.', ref('TaskCounts')),
      '/tasks/{id}': read('getTask', 'Task detail.', ref('TaskDetail'), [idParam], { '404': problem('Unknown task.') }),
      '/tasks/{id}/status-audit': read('statusAudit', 'Page of status transitions, newest first.', ref('StatusAuditPage'), [idParam, ...skipTake()], { '404': problem('Unknown task.') }),
      '/tasks/{id}/runs-audit': read('runsAudit', 'Page of runs, newest first.', ref('RunsAuditPage'), [idParam, ...skipTake()], { '404': problem('Unknown task.') }),
      '/tasks/{id}/execution-logs': read('executionLogs', 'Page of execution logs by sequence number (D16).', ref('ExecutionLogPage'), [idParam, ...skipTake()], { '404': problem('Unknown task.') }),
      '/tasks/{id}/occurrences': read(
        'occurrences',
        'Occurrences of a durable schedule, newest slot first.',
        ref('OccurrencePage'),
        [idParam, q('nonTerminalOnly', { type: 'boolean', default: false }, 'Only occurrences that can still lead to an execution.'), ...skipTake()],
        { '404': problem('Unknown task.') },
      ),
      '/dashboard/overview': read('dashboardOverview', 'Overview for a range.', ref('DashboardOverview'), [rangeParam, timeZoneParam]),
      '/dashboard/recent-activity': read('recentActivity', 'Newest status transitions.', arr(ref('RecentActivityItem')), [
        q('limit', { type: 'integer', default: 50, minimum: 1, maximum: 100 }, 'Items (clamped to 1..100).'),
      ]),
      '/queues': read('listQueues', 'Metrics of all queues.', arr(ref('QueueMetrics'))),
      '/queues/{name}/tasks': read('listQueueTasks', 'Tasks of one queue.', ref('TaskPage'), [
        { name: 'name', in: 'path', required: true, schema: str, description: 'Queue name.' },
        ...taskListParams.filter((p) => p.name !== 'queueName'),
      ]),
      '/statistics/success-rate-trend': read('successRateTrend', 'Success-rate trend.', ref('SuccessRateTrend'), [
        q('period', { type: 'string', enum: PERIODS, default: 'Last7Days' }, 'Daily points (7/30 days) or weekly points (90 days).'),
        timeZoneParam,
      ]),
      '/statistics/task-types': read('taskTypes', 'Task types distribution.', ref('TaskTypesDistribution'), [rangeParam, timeZoneParam]),
      '/statistics/execution-times': read('executionTimes', 'Execution time statistics by type.', arr(ref('ExecutionTimesItem')), [rangeParam, timeZoneParam]),
      '/management/tasks/{id}/requeue': mgmt('requeueTask', 'Requeue a terminal (Failed or Cancelled) occurrence.'),
      '/management/tasks/{id}/resume': mgmt('resumeSchedule', 'Release a halted catch-up of a durable schedule.'),
      '/management/tasks/{id}/cancel': mgmt('cancelSchedule', 'Cancel a durable schedule and its pending occurrences.'),
    },
  };
}
