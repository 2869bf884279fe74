import type {
  DashboardOverview,
  DashboardRange,
  ExecutionLogPage,
  ExecutionTimesItem,
  FailureGroups,
  OccurrencePage,
  QueueMetrics,
  RecentActivityItem,
  RunsAuditPage,
  StatusAuditPage,
  SuccessRateTrend,
  TaskCounts,
  TaskDetail,
  TaskPage,
  TaskSortField,
  TaskStatus,
  TaskTypesDistribution,
  TrendPeriod,
} from '../contracts/index.js';

/**
 * The storage contract under the monitoring API (in the manner of Hangfire's IMonitoringApi):
 * every method answers one endpoint's question from SQL alone, already in wire shape
 * (ISO timestamps, null fields left undefined). Lists are indexed queries with LIMIT/OFFSET;
 * counts, overview, queue metrics and statistics read the read models (O(groups)).
 */
export interface TaskListFilter {
  statuses?: readonly TaskStatus[];
  queueName?: string;
  /** Partial, case-insensitive match on the full type name. */
  taskType?: string;
  isRecurring?: boolean;
  createdAfterMs?: number;
  createdBeforeMs?: number;
  /** Partial match on type, handler or task key. */
  searchTerm?: string;
  /** With searchTerm: its words also match inside the request JSON (names OR arguments). */
  searchTermRequestTerms?: readonly string[];
  /** Argument search: every word or phrase must occur in the request JSON (keys or values). */
  requestSearch?: readonly string[];
  /** Only rows whose last run failed with an error of this fingerprint (exact). */
  failureFingerprint?: string;
  parentTaskId?: string;
  onlyOccurrences?: boolean;
  onlyCatchUp?: boolean;
}

/** A validated list query: pageSize clamped to 1..500, page to ≥ 1, a known sort field. */
export interface TaskListQuery extends TaskListFilter {
  sortBy: TaskSortField;
  sortDescending: boolean;
  page: number;
  pageSize: number;
}

export interface PageRequest {
  skip: number;
  take: number;
}

/** What a management endpoint needs to know about a row before addressing the engine. */
export interface ManagementTarget {
  id: string;
  taskKey?: string;
  isDurableSchedule: boolean;
  isOccurrence: boolean;
  status: TaskStatus;
}

/** Durable schedules by state: materializing, or halted over their catch-up cap. */
export interface ScheduleStates {
  active: number;
  halted: number;
}

export interface MonitoringStore {
  listTasks(query: TaskListQuery): Promise<TaskPage>;
  getTask(id: string): Promise<TaskDetail | undefined>;
  /** undefined when the task does not exist. */
  statusAudits(id: string, page: PageRequest): Promise<StatusAuditPage | undefined>;
  runsAudits(id: string, page: PageRequest): Promise<RunsAuditPage | undefined>;
  executionLogs(id: string, page: PageRequest): Promise<ExecutionLogPage | undefined>;
  occurrences(id: string, nonTerminalOnly: boolean, page: PageRequest): Promise<OccurrencePage | undefined>;
  counts(): Promise<TaskCounts>;
  /**
   * `timeZone` (an IANA name, already validated): ranges follow that zone's calendar and the
   * chart buckets start at its local midnights / hours (see zonedCalendar); absent → UTC ranges.
   */
  overview(range: DashboardRange, nowMs: number, timeZone?: string): Promise<DashboardOverview>;
  recentActivity(limit: number): Promise<RecentActivityItem[]>;
  /** `nowMs` (default: the clock) dates the additive latency fields. */
  queueMetrics(nowMs?: number): Promise<QueueMetrics[]>;
  successRateTrend(period: TrendPeriod, nowMs: number, timeZone?: string): Promise<SuccessRateTrend>;
  taskTypes(range: DashboardRange, nowMs: number, timeZone?: string): Promise<TaskTypesDistribution>;
  executionTimes(range: DashboardRange, nowMs: number, timeZone?: string): Promise<ExecutionTimesItem[]>;
  managementTarget(id: string): Promise<ManagementTarget | undefined>;
  /** Ids of the rows `filter` matches, oldest first, at most `limit` (targets of a bulk action). */
  taskIds(filter: TaskListFilter, limit: number): Promise<string[]>;
  /** Failed runs grouped by task type and exception fingerprint, over the read model. */
  failureGroups(range: DashboardRange, nowMs: number): Promise<FailureGroups>;
  /** Durable schedules by state (metrics gauges), over partial indexes. */
  scheduleStates(): Promise<ScheduleStates>;
  /** The schema version applied to the store and the newest this code knows (readiness); rejects when the store does not answer. */
  schemaState(): Promise<SchemaState>;
}

export interface SchemaState {
  applied: number;
  latest: number;
}

/** The same contract answered synchronously (how SQLite implements it inside). */
export type SyncMonitoringStore = {
  [K in keyof MonitoringStore]: MonitoringStore[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : never;
};

/** Wraps a synchronous implementation into the Promise-returning contract (a throw becomes a rejection). */
export function asyncMonitoringStore(sync: SyncMonitoringStore): MonitoringStore {
  const out: Partial<Record<keyof MonitoringStore, unknown>> = {};
  for (const key of Object.keys(sync) as (keyof MonitoringStore)[]) {
    const fn = sync[key] as (...args: unknown[]) => unknown;
    out[key] = async (...args: unknown[]) => fn(...args);
  }
  return out as MonitoringStore;
}
