import type {
  DashboardOverview,
  DashboardRange,
  ExecutionLogPage,
  ExecutionTimesItem,
  Guid,
  IsoTimestamp,
  LoginRequest,
  LoginResponse,
  MagicResponse,
  ManagementResponse,
  MonitoringConfig,
  OccurrencePage,
  QueueMetrics,
  RecentActivityItem,
  RunsAuditPage,
  StatusAuditPage,
  SuccessRateTrend,
  TaskCounts,
  TaskDetail,
  TaskPage,
  TaskStatus,
  TaskTypesDistribution,
  TrendPeriod,
  ValidateResponse,
} from './task.js';
import type { BulkAction, BulkFilter, BulkOperation, FailureGroups, SearchScope } from './operations.js';
import type { TASK_SORT_FIELDS } from './apiRoutes.js';
import type { OperatorAuditPage, OperatorAuditQuery } from './operatorAudit.js';

/** Accepted sort fields of the task lists (case-insensitive on the wire); listed in the route catalogue. */
export type TaskSortField = (typeof TASK_SORT_FIELDS)[number];

/** Query of GET /tasks (and GET /queues/{name}/tasks). */
export interface TaskQuery {
  statuses?: TaskStatus[];
  queueName?: string;
  taskType?: string;
  isRecurring?: boolean;
  createdAfter?: IsoTimestamp;
  createdBefore?: IsoTimestamp;
  searchTerm?: string;
  /** Additive: where searchTerm looks (default Names). */
  searchScope?: SearchScope;
  /** Additive: words and quoted phrases that must occur in the request JSON. */
  requestSearch?: string;
  /** Additive: only tasks whose last run failed with an error of this fingerprint (a failure group's). */
  failureFingerprint?: string;
  parentTaskId?: Guid;
  onlyOccurrences?: boolean;
  onlyCatchUp?: boolean;
  sortBy?: TaskSortField;
  sortDescending?: boolean;
  page?: number;
  pageSize?: number;
}

/** GET /health (no authentication): whether the engine can write; no details beyond a reason. 503 when `failed`. */
export interface HealthReport {
  status: 'ok' | 'degraded' | 'failed';
  reason?: string;
  /** Additive, with alert rules only: alert messages delivered, given up after their retries (or dropped), and waiting. */
  alerts?: { delivered: number; failed: number; waiting: number; lastFailureUtc?: string };
  /**
   * Additive, with a local engine on PostgreSQL only: this host's clock minus the database's, ms
   * (measured on each heartbeat), and whether it is within 1 s. The engine runs on the database's
   * clock either way.
   */
  clock?: { offsetMs: number; ok: boolean };
}

/** GET /svc-monitoring/health/live: the process answers (always 200 while it does). */
export interface LivenessReport {
  status: 'alive';
}

/**
 * GET /svc-monitoring/health/ready: 200 when ready, 503 otherwise. Ready = the storage answers,
 * its schema has every migration this version knows, the process is not draining (a stop has
 * begun) and the engine, when there is one, has not failed.
 */
export interface ReadinessReport {
  status: 'ready' | 'unavailable';
  storage: 'reachable' | 'unreachable';
  migrations: 'applied' | 'pending' | 'unknown';
  draining: boolean;
  engine?: 'ok' | 'degraded' | 'failed';
}

export interface PageQuery {
  skip?: number;
  take?: number;
}

/**
 * The API operations by name, with their parameters and results (routes: `API_ROUTES`). The web dashboard maps each to an HTTP call;
 * the desktop console's renderer asks main for an operation by name and main validates the
 * parameters and makes the call (the renderer never holds a token).
 */
export interface ApiOperations {
  'config.get': { params: Record<string, never>; result: MonitoringConfig };
  'health.get': { params: Record<string, never>; result: HealthReport };
  'auth.login': { params: LoginRequest; result: LoginResponse };
  'auth.magic': { params: { token: string }; result: MagicResponse };
  /** Deprecated query form of `auth.magic`. */
  'auth.magicQuery': { params: { token: string }; result: MagicResponse };
  'auth.validate': { params: { token?: string }; result: ValidateResponse };
  'tasks.list': { params: TaskQuery; result: TaskPage };
  'tasks.counts': { params: Record<string, never>; result: TaskCounts };
  'tasks.get': { params: { id: Guid }; result: TaskDetail };
  'tasks.statusAudit': { params: { id: Guid } & PageQuery; result: StatusAuditPage };
  'tasks.runsAudit': { params: { id: Guid } & PageQuery; result: RunsAuditPage };
  'tasks.executionLogs': { params: { id: Guid } & PageQuery; result: ExecutionLogPage };
  'tasks.occurrences': { params: { id: Guid; nonTerminalOnly?: boolean } & PageQuery; result: OccurrencePage };
  'dashboard.overview': { params: { range?: DashboardRange; timeZone?: string }; result: DashboardOverview };
  'dashboard.recentActivity': { params: { limit?: number }; result: RecentActivityItem[] };
  'queues.list': { params: Record<string, never>; result: QueueMetrics[] };
  'queues.tasks': { params: Omit<TaskQuery, 'queueName'> & { name: string }; result: TaskPage };
  'statistics.successRateTrend': { params: { period?: TrendPeriod; timeZone?: string }; result: SuccessRateTrend };
  'statistics.taskTypes': { params: { range?: DashboardRange; timeZone?: string }; result: TaskTypesDistribution };
  'statistics.executionTimes': { params: { range?: DashboardRange; timeZone?: string }; result: ExecutionTimesItem[] };
  'management.requeue': { params: { id: Guid }; result: ManagementResponse };
  'management.resume': { params: { id: Guid }; result: ManagementResponse };
  'management.cancel': { params: { id: Guid }; result: ManagementResponse };
  'management.retry': { params: { id: Guid }; result: ManagementResponse };
  'management.bulk': { params: { action: BulkAction; filter: BulkFilter; expectedCount: number }; result: BulkOperation };
  'management.bulkStatus': { params: { operationId: Guid }; result: BulkOperation };
  'statistics.failureGroups': { params: { range?: DashboardRange }; result: FailureGroups };
  'audit.list': { params: OperatorAuditQuery; result: OperatorAuditPage };
}
export type ApiOperation = keyof ApiOperations;
export type ApiParams<Op extends ApiOperation> = ApiOperations[Op]['params'];
export type ApiResult<Op extends ApiOperation> = ApiOperations[Op]['result'];
