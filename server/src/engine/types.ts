import type { AttemptNotice, AuditLevel, StoppedRunNotice, SvcEvent, TaskEndNotice, TaskStatus } from '../contracts/index.js';
import type { EngineStore } from '../storage/EngineStore.js';
import type { SqliteStorage } from '../storage/Storage.js';
import type { TaskOperations } from './operations/TaskOperations.js';
import type { ScheduleManager } from './schedules/ScheduleManager.js';
import type { RateLimit } from './RateLimiter.js';
import type { RetryOptions } from './RetryPolicy.js';

/** `ctx.log` inside a handler: rows of execution_logs, capped per run. */
export interface TaskLogger {
  trace(message: string, err?: unknown): void;
  debug(message: string, err?: unknown): void;
  info(message: string, err?: unknown): void;
  warn(message: string, err?: unknown): void;
  error(message: string, err?: unknown): void;
}

/** What a handler receives besides its request. */
export interface TaskContext {
  readonly taskId: string;
  /** Full dotted type name. */
  readonly type: string;
  readonly queue: string;
  /**
   * 1 for the first try; each failed attempt (retry) and each earlier run abandoned while running
   * (its process died or lost its lease) adds one.
   */
  readonly attempt: number;
  /** Inline recurring rows: number of this run (1-based); one-shots: 1. */
  readonly runNumber: number;
  readonly taskKey?: string;
  readonly parentTaskId?: string;
  /** Aborted on timeout, cancel, or engine stop after the grace period. */
  readonly signal: AbortSignal;
  readonly log: TaskLogger;
}

export type TaskHandler<TRequest = unknown> = (request: TRequest, ctx: TaskContext) => unknown | Promise<unknown>;

export interface HandleOptions {
  /** Full handler name; default `<type>Handler`. */
  handlerName?: string;
  /** Retry policy for this type (dispatch options override). */
  retry?: RetryOptions;
  /** Per-run timeout for this type (dispatch options override). */
  timeoutMs?: number;
  /** At most `limit` starts per `windowMs` for this type (per rateLimitKey when a task has one). */
  rateLimit?: RateLimit;
}

export interface QueueOptions {
  /** Handlers running at once. Default 4. */
  concurrency?: number;
  /** Queued rows admitted; beyond it rows wait as WaitingQueue. Default unlimited. */
  capacity?: number;
}

export interface EngineOptions {
  /** A writable SQLite storage (openSqliteStorage); the engine writes through its SQLite EngineStore. */
  storage?: SqliteStorage;
  /** Any EngineStore (e.g. PostgreSQL). Exactly one of storage and store. */
  store?: EngineStore;
  /** Named queues; 'default' is always present (concurrency 4, unlimited capacity unless given). */
  queues?: Record<string, QueueOptions>;
  /** Default audit level of new tasks. Default 'Full'. */
  auditLevel?: AuditLevel;
  /** How often the store is polled for rows written by others and due times. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Execution log rows kept per run. Default 1000. */
  logCapPerRun?: number;
  /** Engine-wide default retry policy. Default: 1 attempt (no retry). */
  retry?: RetryOptions;
  /** Engine-wide default per-run timeout (ms). Default none. */
  timeoutMs?: number;
  /** Grace period of stop() when none is given. Default 10000 ms. */
  stopGraceMs?: number;
  /**
   * A run found abandoned (its process died, or on a shared store its instance lost its lease) is
   * run again up to this many times; the next abandonment ends the task Failed. Default 3.
   */
  maxAbandoned?: number;
  /** Dispatched tasks waiting to be written at most (the store slow or unavailable). Default 100000. */
  maxUnwrittenTasks?: number;
  /** When `maxUnwrittenTasks` are waiting: dispatch waits for room ('wait', default) or rejects ('reject'). */
  onUnwrittenFull?: 'wait' | 'reject';
  /**
   * A queue of short handlers takes rows ahead of its free workers; such a row stays Queued
   * (reserved by this engine) and waits at most this long for a worker before it is handed back
   * to any engine. Default 250 ms.
   */
  reservationBudgetMs?: number;
  /**
   * Clock for stored timestamps (ms since epoch). Default: the store's shared clock when it has one
   * (PostgreSQL: the database's, as this host reads it), else Date.now.
   */
  clock?: () => number;
  /** Where tick and listener errors are reported. Default console.error. */
  onError?: (error: unknown, where: string) => void;
}

export interface DispatchOptions {
  /** A configured queue name; default 'default'. */
  queue?: string;
  /** Due time (Date, ISO string or ms). Future → Pending until due. */
  runAt?: Date | string | number;
  /** Due in this many ms (>= 0). */
  delayMs?: number;
  /** Deduplication key: a non-terminal row with this key is returned instead of a new one. */
  taskKey?: string;
  retry?: RetryOptions;
  timeoutMs?: number;
  auditLevel?: AuditLevel;
  rateLimitKey?: string;
}

export interface RecurringOptions {
  /** Interval: ms or a duration string ('30s', '5m', '1h'). Exactly one of every / cron. */
  every?: number | string;
  /** Cron pattern (5 fields, or 6 with seconds), evaluated in timeZone. */
  cron?: string;
  /** IANA zone for cron; default 'UTC'. */
  timeZone?: string;
  /** Completed after this many runs. */
  maxRuns?: number;
  /** No run after this instant; Completed after the last run before it. */
  until?: Date | string | number;
  /** First run not before this instant (default: the first slot after now). */
  startAt?: Date | string | number;
  taskKey?: string;
  queue?: string;
  retry?: RetryOptions;
  timeoutMs?: number;
  auditLevel?: AuditLevel;
  rateLimitKey?: string;
}

export interface StopOptions {
  /** How long running handlers may take to finish before their rows become ServiceStopped. */
  graceMs?: number;
  /**
   * How long stop() keeps trying to write what is still queued while the store refuses writes
   * (locked by another process, disk full, file gone); what is left unwritten is recovered at the
   * next start. Default 5000 ms.
   */
  writeTimeoutMs?: number;
}

/** Result of engine.cancel(id). */
export type CancelResult =
  /** The row is now Cancelled. */
  | 'Cancelled'
  /** The row is running here: its signal is aborted; it becomes Cancelled when the handler settles. */
  | 'Cancelling'
  | 'NotFound'
  /** Terminal, ServiceStopped, running in another process, or a durable schedule (use engine.schedules.cancel). */
  | 'NotCancellable';

export type EngineEventListener = (event: SvcEvent) => void;

/** Storage trouble: the store unavailable (lock, disk full, I/O), its file deleted or replaced. */
export type EngineErrorListener = (error: Error) => void;

/**
 * What `engine.health()` reports. `failed`: the engine cannot write (its database file was
 * deleted or replaced); `degraded`: writes are failing for now (kept in memory and retried);
 * `ok` otherwise.
 */
export interface EngineHealth {
  status: 'ok' | 'degraded' | 'failed';
  reason?: string;
  /** Changes (new tasks, ends of runs, audits, execution logs) not yet written. */
  unwrittenChanges: number;
  /** Age of the oldest change not yet written, ms (0: everything written). */
  oldestUnwrittenMs: number;
  /**
   * Writes of this engine's runs (start, failed attempt, end, stop) the store refused because the
   * row no longer belonged to the run (recovered and taken by another instance, or cancelled
   * before its start was written): dropped, never applied. Since the engine was created.
   */
  staleRunWrites: number;
  /**
   * Stores shared by several hosts only (PostgreSQL): this host's clock minus the database's, ms,
   * measured on each heartbeat, and whether it is within 1 s (ok). The engine runs on
   * the database's clock either way; a host far off says so here.
   */
  clock?: { offsetMs: number; ok: boolean };
}

export interface Engine {
  /** The SQLite storage given at creation (undefined when the engine was given a `store`). */
  readonly storage: SqliteStorage | undefined;
  /** The store the engine writes to. */
  readonly store: EngineStore;
  readonly schedules: ScheduleManager;
  /** Retry of a finished task and bulk actions over many (management operations). */
  readonly tasks: TaskOperations;
  handle<TRequest = unknown>(type: string, handler: TaskHandler<TRequest>, options?: HandleOptions): Engine;
  start(): Promise<void>;
  stop(options?: StopOptions): Promise<void>;
  dispatch(type: string, request?: unknown, options?: DispatchOptions): Promise<string>;
  recurring(type: string, request?: unknown, options?: RecurringOptions): Promise<string>;
  cancel(id: string): Promise<CancelResult>;
  on(event: 'event', listener: EngineEventListener): Engine;
  /** Storage errors (the store unavailable, its file deleted or replaced), once per new trouble. */
  on(event: 'error', listener: EngineErrorListener): Engine;
  off(event: 'event', listener: EngineEventListener): Engine;
  off(event: 'error', listener: EngineErrorListener): Engine;
  /** Whether the engine can write, and what is waiting to be written. */
  health(): EngineHealth;
  /** Calls `listener` with the duration (seconds) of every successful store commit; returns the unsubscribe. */
  observeCommits(listener: (seconds: number) => void): () => void;
  /** Calls `listener` for every run given up at a stop (its row becomes ServiceStopped); returns the unsubscribe. */
  observeStoppedRuns(listener: (run: StoppedRunNotice) => void): () => void;
  /** Calls `listener` at the end of every handler attempt (retried ones included); returns the unsubscribe. */
  observeAttempts(listener: (attempt: AttemptNotice) => void): () => void;
  /** Calls `listener` once a task's terminal end (Completed, Failed, Cancelled) run here is written; returns the unsubscribe. */
  observeTaskEnds(listener: (end: TaskEndNotice) => void): () => void;
  /** Whether start() has run and stop() has not. */
  isRunning(): boolean;
  readonly queueNames: readonly string[];
}

export type { TaskStatus };
