/**
 * Wire types of the monitoring service. The renderer and the desktop main process load the
 * contracts at run time, so no contracts module imports anything outside the contracts.
 * Timestamps are ISO 8601 UTC strings; fields whose value is null are omitted on the wire,
 * hence every nullable field is optional here.
 */

export const TASK_STATUSES = [
  'WaitingQueue',
  'Queued',
  'InProgress',
  'Pending',
  'Cancelled',
  'Completed',
  'Failed',
  'ServiceStopped',
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Statuses after which a row never runs again on its own. */
export type TerminalStatus = 'Completed' | 'Failed' | 'Cancelled';

export type AuditLevel = 'Full' | 'ErrorsOnly' | 'None';
export type OccurrenceMode = 'Durable';
export type MisfirePolicy = 'ReplayAll' | 'SkipOldest' | 'Collapse' | 'Skip';
export type MisfireKind = 'OnTime' | 'CatchUp';
export type SkipReason = 'OutsideMisfireWindow' | 'OverflowCap' | 'NotCurrent';
export type IsoTimestamp = string;
export type Guid = string;

/** Task summary: items of GET /tasks and GET /queues/{name}/tasks. */
export interface TaskSummary {
  id: Guid;
  /** Short type name (last dotted segment) in lists. */
  type: string;
  status: TaskStatus;
  queueName: string;
  createdAtUtc: IsoTimestamp;
  lastExecutionUtc?: IsoTimestamp;
  startedAtUtc?: IsoTimestamp;
  scheduledExecutionUtc?: IsoTimestamp;
  isRecurring: boolean;
  executionTimeMs?: number;
  parentTaskId?: Guid;
  occurrenceMode?: OccurrenceMode;
  misfirePolicy?: MisfirePolicy;
  timeZoneId?: string;
  scheduleVersion?: number;
  nominalSlotUtc?: IsoTimestamp;
  misfireKind?: MisfireKind;
  /**
   * Additive (not in the spec): wall-clock length of the last finished run, from the
   * timestamps of its InProgress and end transitions, in milliseconds. Present when that start
   * was recorded (audit level Full), also for a run that failed or timed out (whose
   * executionTimeMs reads 0).
   */
  runDurationMs?: number;
  /** Additive: first line of the last error (at most 200 characters), on a row that has one. */
  errorSummary?: string;
  /**
   * Additive: on a Queued row taken ahead of a free worker, the engine instance that reserved it
   * (its handler has not begun; any process can still cancel it) and since when.
   */
  reservedBy?: string;
  reservedAtUtc?: IsoTimestamp;
}

/** One status transition of a task: `newStatus` is the status it moved to; the highest id is the newest. */
export interface StatusAuditEntry {
  id: number;
  queuedTaskId: Guid;
  updatedAtUtc: IsoTimestamp;
  newStatus: TaskStatus;
  exception?: string;
  /** Additive: who made the transition when a person did (retry, bulk actions). */
  changedBy?: string;
}

/** One run of an inline recurring row: `executedAt` is the end of the run; a run that threw reads 0 ms. */
export interface RunsAuditEntry {
  id: number;
  queuedTaskId: Guid;
  executedAt: IsoTimestamp;
  executionTimeMs: number;
  status: 'Completed' | 'Failed';
  exception?: string;
}

/** What an occurrence of a durable schedule stands for: its slot, its run number, and the missed slots it collapsed. */
export interface OccurrenceBlock {
  slotUtc: IsoTimestamp;
  runNumber: number;
  timeZoneId?: string;
  misfireKind: MisfireKind;
  missedFromUtc?: IsoTimestamp;
  missedThroughUtc?: IsoTimestamp;
  missedCount?: number;
  missedCountIsExact?: boolean;
}

/** Why a durable schedule's catch-up halted over its overflow cap. Only a schedule change or resume clears it. */
export interface HaltBlock {
  atUtc: IsoTimestamp;
  reason: string;
  detectedAtLeast: number;
  isExact: boolean;
  cursorUtc?: IsoTimestamp;
  scheduleVersion: number;
}

export type LogLevel = 'Trace' | 'Debug' | 'Information' | 'Warning' | 'Error';

/** One execution log record, written by a handler through `ctx.log`; ordered by `sequenceNumber`. */
export interface ExecutionLogEntry {
  id: number;
  taskId: Guid;
  timestampUtc: IsoTimestamp;
  level: LogLevel;
  message: string;
  exceptionDetails?: string;
  sequenceNumber: number;
}

/**
 * Task detail: the summary fields plus the request and the first page (100) of each history
 * block. `type` and `handler` are full names here.
 */
export interface TaskDetail extends TaskSummary {
  handler: string;
  request: string;
  taskKey?: string;
  statusAudits: StatusAuditEntry[];
  runsAudits: RunsAuditEntry[];
  statusAuditsTotalCount: number;
  runsAuditsTotalCount: number;
  occurrence?: OccurrenceBlock;
  halt?: HaltBlock;
  executionLogs: ExecutionLogEntry[];
  executionLogsTotalCount: number;
  /** Last error text of the row, when it has one. */
  exception?: string;
  throttledUntilUtc?: IsoTimestamp;
  auditLevel: AuditLevel;
  /** Additive (not in the spec): the definition of a durable schedule, on its schedule row. */
  scheduleDefinition?: ScheduleDefinitionView;
  /** Additive: the OpenTelemetry trace id of the dispatch that created the task (with a tracer provider at dispatch). */
  traceId?: string;
  /** Additive: on a halted schedule, what resume would do now given the definition. */
  resumeOutlook?: ResumeOutlook;
}

/** A durable schedule's definition as the console shows it. */
export interface ScheduleDefinitionView {
  cron?: string;
  everyMs?: number;
  /** Interval schedules: slot k is anchorUtc + k·everyMs. */
  anchorUtc?: IsoTimestamp;
  timeZone: string;
  misfirePolicy: MisfirePolicy;
  misfireWindowMs: number;
  overflowCap: number;
  startAtUtc?: IsoTimestamp;
  untilUtc?: IsoTimestamp;
  maxRuns?: number;
}

/** A dry run of resume against the current definition, at the time of the request. */
export interface ResumeOutlook {
  /** Slots between the halt cursor and now (counting stops at a bound: see missedSlotsIsExact). */
  missedSlots: number;
  missedSlotsIsExact: boolean;
  /** Of those, the slots inside the misfire window (the ones a resume plans). */
  slotsInWindow: number;
  slotsInWindowIsExact: boolean;
  /** How far the cursor is behind now, in seconds. */
  behindSeconds: number;
  /** HaltsAgain: the backlog is still over the overflow cap; Replays: resume writes occurrences. */
  outcome: 'HaltsAgain' | 'Replays';
  /** Catch-up occurrences resume would write (Replays). */
  replayCount: number;
  /** Slots resume would drop (outside the window, over the cap, not current). */
  skipCount: number;
  /** ReplayAll: the smallest overflowCap that lets the current backlog through (when countable). */
  capNeeded?: number;
}

/** One page of a task list (GET /tasks, GET /queues/{name}/tasks). */
export interface TaskPage {
  items: TaskSummary[];
  totalCount: number;
  page: number;
  pageSize: number;
  totalPages: number;
}

/** Paged audits (newest first) and execution logs (sequence order); `totalCount` counts the whole trail. */
export interface StatusAuditPage {
  audits: StatusAuditEntry[];
  totalCount: number;
  skip: number;
  take: number;
}
export interface RunsAuditPage {
  audits: RunsAuditEntry[];
  totalCount: number;
  skip: number;
  take: number;
}
export interface ExecutionLogPage {
  logs: ExecutionLogEntry[];
  totalCount: number;
  skip: number;
  take: number;
}

/** One occurrence of a durable schedule (GET /tasks/{id}/occurrences); it is a task row with its own detail. */
export interface OccurrenceListItem {
  id: Guid;
  parentTaskId: Guid;
  status: TaskStatus;
  occurrence: OccurrenceBlock;
  createdAtUtc: IsoTimestamp;
  lastExecutionUtc?: IsoTimestamp;
  startedAtUtc?: IsoTimestamp;
  executionTimeMs?: number;
  scheduleVersion?: number;
  /** Additive: wall-clock length of the last run from its audited start and end (as on task items). */
  runDurationMs?: number;
}
export interface OccurrencePage {
  occurrences: OccurrenceListItem[];
  totalCount: number;
  skip: number;
  take: number;
}

/** Counts by category (GET /tasks/counts). `occurrences` is a slice already inside `standard`. */
export interface TaskCounts {
  all: number;
  standard: number;
  recurring: number;
  failed: number;
  occurrences: number;
}

export type DashboardRange = 'Today' | 'Week' | 'Month' | 'All';
export type TrendPeriod = 'Last7Days' | 'Last30Days' | 'Last90Days';

export interface TasksOverTimePoint {
  timestamp: IsoTimestamp;
  completed: number;
  failed: number;
  total: number;
}

export interface QueueSummary {
  queueName: string;
  pendingCount: number;
  inProgressCount: number;
  completedCount: number;
  failedCount: number;
  throttledCount: number;
  /**
   * Additive: the part of pendingCount that is not work: durable-schedule definitions and
   * inline recurring rows waiting for their next run.
   */
  recurringWaitingCount?: number;
  /** Additive: of pendingCount, the Queued rows an engine instance has reserved (not started). */
  reservedCount?: number;
}

export interface CatchUpBacklog {
  pending: number;
  active: number;
  failed: number;
  skipped: number;
  completed: number;
  oldestPendingSlotUtc?: IsoTimestamp;
  lagSeconds: number;
  haltedSchedules: number;
}

/** The dashboard overview of one range (GET /dashboard/overview). */
export interface DashboardOverview {
  totalTasksToday: number;
  totalTasksWeek: number;
  successRate: number;
  failedCount: number;
  avgExecutionTimeMs: number;
  statusDistribution: Partial<Record<TaskStatus, number>>;
  tasksOverTime: TasksOverTimePoint[];
  queueSummaries: QueueSummary[];
  throttledTasks: number;
  catchUpBacklog: CatchUpBacklog;
  /** Additive: the window the range covered (the zone's calendar when `timeZone` was given). */
  window?: OverviewWindow;
}

export interface OverviewWindow {
  timeZone: string;
  /** Absent for All. */
  fromUtc?: IsoTimestamp;
  toUtc: IsoTimestamp;
}

/** One recent status transition (GET /dashboard/recent-activity). */
export interface RecentActivityItem {
  taskId: Guid;
  taskType: string;
  status: TaskStatus;
  timestamp: IsoTimestamp;
  message: string;
}

export interface QueueMetrics {
  queueName: string;
  totalTasks: number;
  queuedTasks: number;
  inProgressTasks: number;
  completedTasks: number;
  failedTasks: number;
  cancelledTasks: number;
  successRate: number;
  /** Additive: how long the next Queued row in line has waited since it became due (ms); absent when none is Queued. */
  oldestQueuedAgeMs?: number;
  /** Additive: runs of this queue that finished in the last minute. */
  finishedLastMinute?: number;
  /**
   * Additive: of queuedTasks, the Queued rows an engine instance has reserved (taken ahead of a
   * free worker; not started). Absent on a database from before reservations.
   */
  reservedCount?: number;
}

export interface SuccessRatePoint {
  timestamp: IsoTimestamp;
  successRate: number;
  totalTasks: number;
  successfulTasks: number;
  failedTasks: number;
}
export interface SuccessRateTrend {
  period: TrendPeriod;
  dataPoints: SuccessRatePoint[];
}

export type TaskTypesDistribution = Record<string, number>;

export interface ExecutionTimesItem {
  taskType: string;
  averageExecutionTime: number;
  minExecutionTime: number;
  maxExecutionTime: number;
  taskCount: number;
}

export interface LoginRequest {
  username: string;
  password: string;
}
export interface LoginResponse {
  token: string;
  expiresAt: IsoTimestamp;
  username: string;
  canManage: boolean;
}
export interface MagicResponse {
  token: string;
  expiresAt: IsoTimestamp;
  username: string;
}
/** Answer of POST /auth/validate: whether the token is valid, whose it is, until when, and whether it may manage. */
export interface ValidateResponse {
  isValid: boolean;
  username: string;
  expiresAt?: IsoTimestamp;
  canManage: boolean;
}

export type ManagementStatus = 'Succeeded' | 'NotFound' | 'Conflict' | 'NotSupported' | 'Unavailable';
export interface ManagementResponse {
  status: ManagementStatus;
  message: string;
  taskId: Guid;
  nextRunUtc?: IsoTimestamp;
  releasedHalt?: boolean;
}

/** Runtime configuration (GET /config, which needs no authentication). */
export interface MonitoringConfig {
  apiBasePath: string;
  uiBasePath: string;
  signalRHubPath: string;
  requireAuthentication: boolean;
  uiEnabled: boolean;
  managementEnabled: boolean;
  eventDebounceMs: number;
  /** Whether POST /auth/login is on (false when the host allows single sign-on only). */
  passwordLoginEnabled: boolean;
  /** The single sign-on button: present when the host configured an OpenID provider. */
  singleSignOn?: SingleSignOnConfig;
}

/**
 * Why a single sign-on failed, as the browser's login page receives it (`?sso_error=<code>`) and
 * the desktop's loopback address (`?error=<code>`).
 */
export type SingleSignOnFailureCode =
  | 'not_configured'
  | 'bad_request'
  | 'issuer_unavailable'
  | 'state_mismatch'
  | 'nonce_mismatch'
  | 'provider_refused'
  | 'invalid_response'
  | 'not_allowed';

export interface SingleSignOnConfig {
  /** The provider's name: the button reads "Sign in with <displayName>". */
  displayName: string;
  /** Where the button goes (a browser navigation, not an API call). */
  loginPath: string;
}

/** Problem details (RFC 9457): the body of every error answer outside the management responses. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  errors?: Record<string, string[]>;
}
