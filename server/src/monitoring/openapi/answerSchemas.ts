/**
 * The zod schemas of every answer and request body the OpenAPI document describes: the handlers
 * parse request bodies with them (login, magic link, validate) and the document prints their JSON
 * Schema, so a field added to a contract type must be added here (the type-check compares each
 * schema with its contract type) and then appears in both.
 */
import { z } from 'zod';
import {
  BULK_ACTIONS,
  DASHBOARD_RANGES,
  OPERATOR_ACTIONS,
  OPERATOR_AUDIT_RESULTS,
  OPERATOR_AUTH_METHODS,
  SEARCH_SCOPES,
  TASK_STATUSES,
  TREND_PERIODS,
  type ApiParams,
  type BulkCountMismatch,
  type BulkOperation,
  type DashboardOverview,
  type ExecutionLogEntry,
  type ExecutionLogPage,
  type ExecutionTimesItem,
  type FailureGroups,
  type HaltBlock,
  type HealthReport,
  type LivenessReport,
  type ReadinessReport,
  type ManagementResponse,
  type OperatorAuditEntry,
  type OperatorAuditPage,
  type MonitoringConfig,
  type OccurrenceBlock,
  type OccurrenceListItem,
  type OccurrencePage,
  type ProblemDetails,
  type RecentActivityItem,
  type ResumeOutlook,
  type RunsAuditEntry,
  type RunsAuditPage,
  type ScheduleDefinitionView,
  type StatusAuditEntry,
  type StatusAuditPage,
  type SuccessRateTrend,
  type TaskDetail,
  type TaskTypesDistribution,
  type LoginRequest,
  type LoginResponse,
  type MagicResponse,
  type QueueMetrics,
  type TaskCounts,
  type TaskPage,
  type TaskSummary,
  type ValidateResponse,
} from '../../contracts/index.js';

/** True when A and B are the same type (not merely assignable one way). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const isoTimestamp = z.string().meta({ format: 'date-time' });
const count = z.int().min(0);
const guid = z.string().meta({ format: 'uuid' });
const misfirePolicy = z.enum(['ReplayAll', 'SkipOldest', 'Collapse', 'Skip']);
const misfireKind = z.enum(['OnTime', 'CatchUp']);

export const taskStatusSchema = z.enum(TASK_STATUSES);

export const problemDetailsSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.int(),
    detail: z.string().optional(),
    instance: z.string().optional(),
    errors: z.record(z.string(), z.array(z.string())).optional(),
  })
  .meta({ description: 'RFC 9457 problem details.' });

export const taskSummarySchema = z.object({
  id: guid,
  type: z.string().meta({ description: 'Short type name in lists; full name in the detail.' }),
  status: taskStatusSchema,
  queueName: z.string(),
  createdAtUtc: isoTimestamp,
  lastExecutionUtc: isoTimestamp.optional().meta({ description: 'End of the last run.' }),
  startedAtUtc: isoTimestamp.optional().meta({ description: 'Start of the last (or current) run; absent when the row never ran.' }),
  scheduledExecutionUtc: isoTimestamp.optional(),
  isRecurring: z.boolean(),
  executionTimeMs: z.number().optional(),
  parentTaskId: guid.optional(),
  occurrenceMode: z.literal('Durable').optional(),
  misfirePolicy: misfirePolicy.optional(),
  timeZoneId: z.string().optional(),
  scheduleVersion: z.int().optional(),
  nominalSlotUtc: isoTimestamp.optional(),
  misfireKind: misfireKind.optional(),
  runDurationMs: z.number().optional().meta({
    description:
      'Additive (not in the spec): wall-clock length of the last finished run in ms, from its InProgress and end status-audit timestamps; present when the start was audited (audit level Full), also for a failed or timed-out run whose executionTimeMs reads 0.',
  }),
  errorSummary: z.string().optional().meta({ description: 'Additive: first line of the last error (at most 200 characters), on a row that has one.' }),
  reservedBy: z.string().optional().meta({
    description: 'Additive: on a Queued row taken ahead of a free worker, the engine instance that reserved it (its handler has not begun; any process can still cancel it).',
  }),
  reservedAtUtc: isoTimestamp.optional().meta({ description: 'Additive: when that instance reserved the row.' }),
});

export const taskPageSchema = z.object({ items: z.array(taskSummarySchema), totalCount: count, page: z.int().min(1), pageSize: z.int().min(1), totalPages: count });

export const statusAuditEntrySchema = z.object({
  id: z.int(),
  queuedTaskId: guid,
  updatedAtUtc: isoTimestamp,
  newStatus: taskStatusSchema,
  exception: z.string().optional(),
  changedBy: z.string().optional().meta({ description: 'Additive: who made the transition when a person did (retry, bulk actions).' }),
});

export const runsAuditEntrySchema = z.object({
  id: z.int(),
  queuedTaskId: guid,
  executedAt: isoTimestamp,
  executionTimeMs: z.number(),
  status: z.enum(['Completed', 'Failed']),
  exception: z.string().optional(),
});

export const executionLogEntrySchema = z.object({
  id: z.int(),
  taskId: guid,
  timestampUtc: isoTimestamp,
  level: z.enum(['Trace', 'Debug', 'Information', 'Warning', 'Error']),
  message: z.string(),
  exceptionDetails: z.string().optional(),
  sequenceNumber: z.int(),
});

export const occurrenceBlockSchema = z.object({
  slotUtc: isoTimestamp,
  runNumber: z.int(),
  timeZoneId: z.string().optional(),
  misfireKind,
  missedFromUtc: isoTimestamp.optional(),
  missedThroughUtc: isoTimestamp.optional(),
  missedCount: z.int().optional(),
  missedCountIsExact: z.boolean().optional(),
});

export const haltBlockSchema = z.object({
  atUtc: isoTimestamp,
  reason: z.string(),
  detectedAtLeast: z.int(),
  isExact: z.boolean(),
  cursorUtc: isoTimestamp.optional(),
  scheduleVersion: z.int(),
});

export const scheduleDefinitionViewSchema = z.object({
  cron: z.string().optional(),
  everyMs: z.number().optional(),
  anchorUtc: isoTimestamp.optional().meta({ description: 'Interval schedules: slot k is anchorUtc + k·everyMs.' }),
  timeZone: z.string(),
  misfirePolicy,
  misfireWindowMs: z.number(),
  overflowCap: z.int(),
  startAtUtc: isoTimestamp.optional(),
  untilUtc: isoTimestamp.optional(),
  maxRuns: z.int().optional(),
});

export const resumeOutlookSchema = z.object({
  missedSlots: z.int().meta({ description: 'Slots between the halt cursor and now.' }),
  missedSlotsIsExact: z.boolean(),
  slotsInWindow: z.int().meta({ description: 'Of those, the slots inside the misfire window (the ones resume plans).' }),
  slotsInWindowIsExact: z.boolean(),
  behindSeconds: z.int(),
  outcome: z.enum(['HaltsAgain', 'Replays']),
  replayCount: z.int(),
  skipCount: z.int(),
  capNeeded: z.int().optional().meta({ description: 'ReplayAll: the smallest overflowCap that lets the current backlog through.' }),
});

export const taskDetailSchema = taskSummarySchema.extend({
  handler: z.string(),
  request: z.string().meta({ description: 'Serialized request (JSON text).' }),
  taskKey: z.string().optional(),
  statusAudits: z.array(statusAuditEntrySchema),
  runsAudits: z.array(runsAuditEntrySchema),
  statusAuditsTotalCount: count,
  runsAuditsTotalCount: count,
  occurrence: occurrenceBlockSchema.optional(),
  halt: haltBlockSchema.optional(),
  executionLogs: z.array(executionLogEntrySchema),
  executionLogsTotalCount: count,
  exception: z.string().optional(),
  throttledUntilUtc: isoTimestamp.optional(),
  auditLevel: z.enum(['Full', 'ErrorsOnly', 'None']),
  scheduleDefinition: scheduleDefinitionViewSchema.optional().meta({ description: 'Additive (not in the spec): the definition of a durable schedule, on its schedule row.' }),
  traceId: z.string().optional().meta({ description: 'Additive: the OpenTelemetry trace id of the dispatch that created the task (stored when a tracer provider was registered).' }),
  resumeOutlook: resumeOutlookSchema.optional().meta({ description: 'Additive: on a halted schedule, a dry run of resume against the current definition.' }),
});

/** A page of a history trail: `totalCount` counts the whole trail. */
const trailPage = <K extends string, T extends z.ZodType>(key: K, item: T) =>
  z.object({ [key]: z.array(item), totalCount: count, skip: count, take: count } as { [P in K]: z.ZodArray<T> } & { totalCount: typeof count; skip: typeof count; take: typeof count });

export const statusAuditPageSchema = trailPage('audits', statusAuditEntrySchema);
export const runsAuditPageSchema = trailPage('audits', runsAuditEntrySchema);
export const executionLogPageSchema = trailPage('logs', executionLogEntrySchema);

export const occurrenceListItemSchema = z.object({
  id: guid,
  parentTaskId: guid,
  status: taskStatusSchema,
  occurrence: occurrenceBlockSchema,
  createdAtUtc: isoTimestamp,
  lastExecutionUtc: isoTimestamp.optional(),
  startedAtUtc: isoTimestamp.optional(),
  executionTimeMs: z.number().optional(),
  scheduleVersion: z.int().optional(),
  runDurationMs: z.number().optional().meta({ description: 'Additive: wall-clock length of the last run from its audited start and end, also for a failed run (executionTimeMs 0).' }),
});
export const occurrencePageSchema = trailPage('occurrences', occurrenceListItemSchema);

export const tasksOverTimePointSchema = z.object({ timestamp: isoTimestamp, completed: count, failed: count, total: count });

export const queueSummarySchema = z.object({
  queueName: z.string(),
  pendingCount: count,
  inProgressCount: count,
  completedCount: count,
  failedCount: count,
  throttledCount: count,
  recurringWaitingCount: count.optional().meta({
    description: 'Additive: the part of pendingCount that is not work (durable-schedule definitions and inline recurring rows waiting for their next run).',
  }),
  reservedCount: count.optional().meta({
    description: 'Additive: of pendingCount, the Queued rows an engine instance has reserved (taken ahead of a free worker; not started).',
  }),
});

export const catchUpBacklogSchema = z.object({
  pending: count,
  active: count,
  failed: count,
  skipped: count,
  completed: count,
  oldestPendingSlotUtc: isoTimestamp.optional(),
  lagSeconds: z.int(),
  haltedSchedules: count,
});

export const dashboardOverviewSchema = z.object({
  totalTasksToday: count,
  totalTasksWeek: count,
  successRate: z.number(),
  failedCount: count,
  avgExecutionTimeMs: z.number(),
  statusDistribution: z.partialRecord(taskStatusSchema, count),
  tasksOverTime: z.array(tasksOverTimePointSchema),
  queueSummaries: z.array(queueSummarySchema),
  throttledTasks: count,
  catchUpBacklog: catchUpBacklogSchema,
  window: z.object({ timeZone: z.string(), fromUtc: isoTimestamp.optional(), toUtc: isoTimestamp }).optional().meta({
    description: 'Additive: the window the range covered (fromUtc absent for All); with timeZone, the zone calendar window shared by every figure of the response.',
  }),
});

export const recentActivityItemSchema = z.object({ taskId: guid, taskType: z.string(), status: taskStatusSchema, timestamp: isoTimestamp, message: z.string() });

export const successRatePointSchema = z.object({ timestamp: isoTimestamp, successRate: z.number(), totalTasks: count, successfulTasks: count, failedTasks: count });
export const successRateTrendSchema = z.object({ period: z.enum(TREND_PERIODS), dataPoints: z.array(successRatePointSchema) });

export const taskTypesDistributionSchema = z.record(z.string(), count).meta({ description: 'Full task type name → tasks created in the range.' });

export const executionTimesItemSchema = z.object({
  taskType: z.string(),
  averageExecutionTime: z.number(),
  minExecutionTime: z.number(),
  maxExecutionTime: z.number(),
  taskCount: count,
});

export const bulkOperationSchema = z.object({
  operationId: guid,
  action: z.enum(BULK_ACTIONS),
  state: z.enum(['Running', 'Completed', 'Failed']),
  count,
  processed: count,
  succeeded: count,
  skipped: count,
  startedAtUtc: isoTimestamp,
  finishedAtUtc: isoTimestamp.optional(),
  requestedBy: z.string().optional(),
  error: z.string().optional(),
});

/** A bulk action's filter as its body sent it (the GET /tasks filter parameters). */
export const bulkFilterSchema = z.object({
  statuses: z.array(taskStatusSchema).optional(),
  queueName: z.string().optional(),
  taskType: z.string().optional(),
  isRecurring: z.boolean().optional(),
  createdAfter: isoTimestamp.optional(),
  createdBefore: isoTimestamp.optional(),
  searchTerm: z.string().optional(),
  searchScope: z.enum(SEARCH_SCOPES).optional(),
  requestSearch: z.string().optional(),
  failureFingerprint: z.string().optional(),
  parentTaskId: guid.optional(),
  onlyOccurrences: z.boolean().optional(),
  onlyCatchUp: z.boolean().optional(),
});

export const operatorAuditEntrySchema = z.object({
  id: z.int().min(1),
  atUtc: isoTimestamp,
  actor: z.string().meta({ description: 'The user name of the session (the attempted one for a failed sign-in); anonymous without a session.' }),
  method: z.enum(OPERATOR_AUTH_METHODS).optional().meta({ description: 'How the session was signed in.' }),
  role: z.enum(['read', 'operate']).optional(),
  clientAddress: z.string().optional().meta({ description: 'After the trusted-proxy rules.' }),
  userAgent: z.string().optional(),
  action: z.enum(OPERATOR_ACTIONS),
  targetId: z.string().optional().meta({ description: 'The task or schedule row acted on.' }),
  result: z.enum(OPERATOR_AUDIT_RESULTS).meta({ description: 'ok; refused (4xx, see status); error (5xx).' }),
  status: z.int().optional().meta({ description: 'The HTTP status of the answer.' }),
  message: z.string().optional(),
  bulk: z
    .object({
      filter: bulkFilterSchema,
      expectedCount: count,
      count: count.optional().meta({ description: 'Rows the filter matched when the action was asked for.' }),
      operationId: guid.optional(),
      state: z.enum(['Running', 'Completed', 'Failed']).optional().meta({ description: 'Running until the operation ends; then the counts it reached.' }),
      processed: count.optional(),
      succeeded: count.optional(),
      skipped: count.optional(),
    })
    .optional(),
});

export const operatorAuditPageSchema = z.object({
  items: z.array(operatorAuditEntrySchema),
  totalCount: count,
  page: z.int().min(1),
  pageSize: z.int().min(1),
  totalPages: count,
});

export const bulkCountMismatchSchema = z.object({ status: z.literal('Conflict'), message: z.string(), expectedCount: count, count });

export const failureGroupsSchema = z.object({
  range: z.enum(DASHBOARD_RANGES),
  groups: z.array(
    z.object({ taskType: z.string(), fingerprint: z.string(), count, firstSeenUtc: isoTimestamp, lastSeenUtc: isoTimestamp, sampleTaskId: guid }),
  ),
});

export const managementResponseSchema = z.object({
  status: z.enum(['Succeeded', 'NotFound', 'Conflict', 'NotSupported', 'Unavailable']),
  message: z.string(),
  taskId: guid,
  nextRunUtc: isoTimestamp.optional(),
  releasedHalt: z.boolean().optional(),
});

export const monitoringConfigSchema = z.object({
  apiBasePath: z.string(),
  uiBasePath: z.string(),
  signalRHubPath: z.string(),
  requireAuthentication: z.boolean(),
  uiEnabled: z.boolean(),
  managementEnabled: z.boolean(),
  eventDebounceMs: count,
  passwordLoginEnabled: z.boolean(),
  singleSignOn: z.object({ displayName: z.string(), loginPath: z.string() }).optional(),
});

export const livenessReportSchema = z.object({ status: z.literal('alive') });

export const readinessReportSchema = z.object({
  status: z.enum(['ready', 'unavailable']),
  storage: z.enum(['reachable', 'unreachable']),
  migrations: z.enum(['applied', 'pending', 'unknown']),
  draining: z.boolean(),
  engine: z.enum(['ok', 'degraded', 'failed']).optional(),
});

export const healthReportSchema = z.object({
  status: z.enum(['ok', 'degraded', 'failed']),
  reason: z.string().optional(),
  alerts: z
    .object({ delivered: count, failed: count, waiting: count, lastFailureUtc: isoTimestamp.optional() })
    .optional()
    .meta({ description: 'Additive, with alert rules only: alert messages delivered, given up after their retries (or dropped), and waiting.' }),
  clock: z
    .object({ offsetMs: z.int(), ok: z.boolean() })
    .optional()
    .meta({
      description:
        "Additive, with a local engine on PostgreSQL only: this host's clock minus the database's (ms, measured on each heartbeat) and whether it is within 1 s. The engine runs on the database's clock either way.",
    }),
});

export const loginRequestSchema = z.object({
  username: z.string({ error: 'The username is required.' }).min(1, { error: 'The username is required.' }),
  password: z.string({ error: 'The password is required.' }),
});

export const loginResponseSchema = z.object({
  token: z.string(),
  expiresAt: isoTimestamp,
  username: z.string(),
  canManage: z.boolean(),
});

export const magicRequestSchema = z.object({ token: z.string() });

/** The token to check; without it, the request's bearer token. */
export const validateRequestSchema = z.object({ token: z.string({ error: 'The token must be a string.' }).optional() });

export const magicResponseSchema = z.object({ token: z.string(), expiresAt: isoTimestamp, username: z.string() });

export const validateResponseSchema = z.object({
  isValid: z.boolean(),
  username: z.string(),
  expiresAt: isoTimestamp.optional(),
  canManage: z.boolean(),
});

export const taskCountsSchema = z.object({ all: count, standard: count, recurring: count, failed: count, occurrences: count });

export const queueMetricsSchema = z.object({
  queueName: z.string(),
  totalTasks: count,
  queuedTasks: count,
  inProgressTasks: count,
  completedTasks: count,
  failedTasks: count,
  cancelledTasks: count,
  successRate: z.number(),
  oldestQueuedAgeMs: z.number().min(0).optional().meta({ description: 'Additive: how long the next Queued row in line has waited since it became due (ms); absent when none is Queued.' }),
  finishedLastMinute: count.optional().meta({ description: 'Additive: runs of this queue that finished in the last minute.' }),
  reservedCount: count.optional().meta({
    description: 'Additive: of queuedTasks, the Queued rows an engine instance has reserved (taken ahead of a free worker; not started). Absent on a database from before reservations.',
  }),
});

// Each schema parses to exactly its contract type: a field added to one and not the other fails the type-check.
type Check<T extends true> = T;
export type SchemasMatchContracts = [
  Check<Same<z.output<typeof loginRequestSchema>, LoginRequest>>,
  Check<Same<z.output<typeof loginResponseSchema>, LoginResponse>>,
  Check<Same<z.output<typeof magicResponseSchema>, MagicResponse>>,
  Check<Same<z.output<typeof validateResponseSchema>, ValidateResponse>>,
  Check<Same<z.output<typeof taskCountsSchema>, TaskCounts>>,
  Check<Same<z.output<typeof queueMetricsSchema>, QueueMetrics>>,
  Check<Same<z.output<typeof taskSummarySchema>, TaskSummary>>,
  Check<Same<z.output<typeof taskPageSchema>, TaskPage>>,
  Check<Same<z.output<typeof problemDetailsSchema>, ProblemDetails>>,
  Check<Same<z.output<typeof statusAuditEntrySchema>, StatusAuditEntry>>,
  Check<Same<z.output<typeof runsAuditEntrySchema>, RunsAuditEntry>>,
  Check<Same<z.output<typeof executionLogEntrySchema>, ExecutionLogEntry>>,
  Check<Same<z.output<typeof occurrenceBlockSchema>, OccurrenceBlock>>,
  Check<Same<z.output<typeof haltBlockSchema>, HaltBlock>>,
  Check<Same<z.output<typeof scheduleDefinitionViewSchema>, ScheduleDefinitionView>>,
  Check<Same<z.output<typeof resumeOutlookSchema>, ResumeOutlook>>,
  Check<Same<z.output<typeof taskDetailSchema>, TaskDetail>>,
  Check<Same<z.output<typeof statusAuditPageSchema>, StatusAuditPage>>,
  Check<Same<z.output<typeof runsAuditPageSchema>, RunsAuditPage>>,
  Check<Same<z.output<typeof executionLogPageSchema>, ExecutionLogPage>>,
  Check<Same<z.output<typeof occurrenceListItemSchema>, OccurrenceListItem>>,
  Check<Same<z.output<typeof occurrencePageSchema>, OccurrencePage>>,
  Check<Same<z.output<typeof dashboardOverviewSchema>, DashboardOverview>>,
  Check<Same<z.output<typeof recentActivityItemSchema>, RecentActivityItem>>,
  Check<Same<z.output<typeof successRateTrendSchema>, SuccessRateTrend>>,
  Check<Same<z.output<typeof taskTypesDistributionSchema>, TaskTypesDistribution>>,
  Check<Same<z.output<typeof executionTimesItemSchema>, ExecutionTimesItem>>,
  Check<Same<z.output<typeof bulkOperationSchema>, BulkOperation>>,
  Check<Same<z.output<typeof bulkCountMismatchSchema>, BulkCountMismatch>>,
  Check<Same<z.output<typeof failureGroupsSchema>, FailureGroups>>,
  Check<Same<z.output<typeof managementResponseSchema>, ManagementResponse>>,
  Check<Same<z.output<typeof monitoringConfigSchema>, MonitoringConfig>>,
  Check<Same<z.output<typeof healthReportSchema>, HealthReport>>,
  Check<Same<z.output<typeof operatorAuditEntrySchema>, OperatorAuditEntry>>,
  Check<Same<z.output<typeof operatorAuditPageSchema>, OperatorAuditPage>>,
  Check<Same<z.output<typeof livenessReportSchema>, LivenessReport>>,
  Check<Same<z.output<typeof readinessReportSchema>, ReadinessReport>>,
  Check<Same<z.output<typeof magicRequestSchema>, ApiParams<'auth.magic'>>>,
  Check<Same<z.output<typeof validateRequestSchema>, ApiParams<'auth.validate'>>>,
];

/** Schemas printed as a reference to their own component wherever another schema holds them. */
const COMPONENTS = new Map<unknown, string>([
  [taskStatusSchema, 'TaskStatus'],
  [taskSummarySchema, 'TaskSummary'],
  [statusAuditEntrySchema, 'StatusAuditEntry'],
  [runsAuditEntrySchema, 'RunsAuditEntry'],
  [executionLogEntrySchema, 'ExecutionLogEntry'],
  [occurrenceBlockSchema, 'OccurrenceBlock'],
  [haltBlockSchema, 'HaltBlock'],
  [scheduleDefinitionViewSchema, 'ScheduleDefinitionView'],
  [resumeOutlookSchema, 'ResumeOutlook'],
  [occurrenceListItemSchema, 'OccurrenceListItem'],
  [tasksOverTimePointSchema, 'TasksOverTimePoint'],
  [queueSummarySchema, 'QueueSummary'],
  [catchUpBacklogSchema, 'CatchUpBacklog'],
  [successRatePointSchema, 'SuccessRatePoint'],
  [operatorAuditEntrySchema, 'OperatorAuditEntry'],
]);

/** A schema as an OpenAPI component: its JSON Schema without the dialect line, nested components as references. */
export function componentSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    io: 'output',
    override: (ctx) => {
      // z.int() prints the safe-integer range as bounds: they say nothing to a reader, so they are left out.
      const printed = ctx.jsonSchema as Record<string, unknown>;
      if (printed.maximum === Number.MAX_SAFE_INTEGER) delete printed.maximum;
      if (printed.minimum === Number.MIN_SAFE_INTEGER) delete printed.minimum;
      const name = COMPONENTS.get(ctx.zodSchema);
      if (name === undefined || (ctx.zodSchema as unknown) === schema) return;
      for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Record<string, unknown>)[key];
      (ctx.jsonSchema as Record<string, unknown>).$ref = `#/components/schemas/${name}`;
    },
  }) as Record<string, unknown>;
  const { $schema: _dialect, ...component } = json;
  return component;
}

/** The 400 errors of a body a schema refused, by the dotted path of each field (`body` for the whole). */
export function fieldErrors(error: z.ZodError): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const field = issue.path.length === 0 ? 'body' : issue.path.join('.');
    (errors[field] ??= []).push(issue.message);
  }
  return errors;
}
