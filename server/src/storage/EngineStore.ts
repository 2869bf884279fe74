import type { AbandonedTask } from './common/abandonedRuns.js';
import type { TaskManagementStore } from './TaskManagementStore.js';
import type { AuditLevel, LogLevel, MisfireKind, MisfirePolicy, OperationResult, TaskStatus } from '../contracts/index.js';

/**
 * The storage contract the engine and the durable schedules live on. The engine never sees a
 * connection: it hands the store batches of changes and reads back plain rows.
 *
 * Rules every implementation keeps (SQLite: `createSqliteEngineStore`; PostgreSQL: its own):
 * - Every method returns a Promise; the engine never assumes it resolves in the same tick.
 * - `commit` applies a whole batch in ONE transaction, parts in the documented order; it
 *   either applies all of it or nothing (then it rejects, and the engine may retry the parts
 *   one by one).
 * - Callbacks passed in (claim decider, schedule planners, id factories) are synchronous and
 *   pure: an implementation may call them inside its transaction, and call them again if it
 *   retries the transaction.
 * - Every status change goes through the transitions of `contracts/taskTransitions.ts`, writes
 *   its status-audit row when the task's audit level records it (`auditAllows`), and keeps the
 *   read models (task counts per group, run buckets) in step in the same transaction.
 * - A row whose status is no longer the one a change expects is left alone (the change reports
 *   false / is absent from the result); two engines on one store never run a row twice at once.
 */
export interface EngineStore {
  /** Where the data lives, for errors and health: a file path, ':memory:', or a database name. */
  readonly location: string;
  /** One group commit (see CommitBatch for the order of its parts). */
  commit(batch: CommitBatch): Promise<CommitOutcome>;
  /**
   * Start-up recovery: InProgress and ServiceStopped rows → Queued (delivery is at least once),
   * an InProgress row counting one more abandoned run (Failed past `maxAbandoned`),
   * throttle marks dropped, WaitingQueue rows of the given unlimited queues admitted.
   * Returns the rows re-queued.
   */
  recover(input: RecoverInput): Promise<number>;
  /** Earliest due time of a Pending row (schedule rows excluded) or release of a throttled row; null: none. */
  nextWakeAt(now: number): Promise<number | null>;
  /** The durable schedules' operations. */
  readonly schedules: ScheduleStore;
  /** Retry of a finished task and bulk actions (see TaskManagementStore). */
  readonly management: TaskManagementStore;
  /** Recomputes every read model from the task table in one transaction. */
  rebuildReadModels(): Promise<void>;
  /**
   * Whether the store is still the one that was opened (a SQLite file deleted or replaced under
   * the process reports ok false with a reason naming the file). Cheap: called once per poll.
   */
  checkLocation(): Promise<LocationCheck>;
  /**
   * Optional, for stores shared by several processes: calls `listener` when another process made
   * work runnable here (rows added, due, or re-queued), so an idle engine looks at once instead
   * of at its next poll. Returns the function that unsubscribes. Polling stays the fallback.
   */
  onExternalWork?(listener: () => void): () => void;
  /**
   * Optional, for stores where runs are held under a lease (several processes): whether this
   * process's heartbeat is failing, and whether its lease has lapsed since the last heartbeat
   * written (other processes may then recover its runs; it must not start new ones).
   */
  lease?(): LeaseState;
  /**
   * Optional, with `lease`: `listener` is called when this process learns that its lease lapsed
   * (its heartbeat could not be written within the lease; other processes may have recovered its
   * rows meanwhile). It stops every run that has not begun or is between attempts (one between
   * attempts whose writes are still queued goes on: its row is kept) and returns the
   * ids of the rows whose handlers still run here or whose writes are still queued; the store then
   * gives up this instance's other rows (they may already be another's) before claims go on. Called
   * again, with the same contract, should giving them up fail and be tried again. Returns the
   * function that unsubscribes.
   */
  onLeaseLost?(listener: (lapse: LeaseLapse) => readonly string[]): () => void;
  /**
   * Optional, for stores shared by several processes: calls `listener` with the id of a row this
   * store reserved that another process cancelled, so the engine forgets it before its handler
   * can begin. Returns the function that unsubscribes. (Without it, the start write finds the row
   * no longer reserved and the run is dropped.)
   */
  onReservationLost?(listener: (taskId: string) => void): () => void;
  /**
   * Optional, for stores where another process (or a write the engine does not see) may take a
   * row from this engine: one read, just before handler attempts begin, of whether each run is
   * still this engine's (see RunCheck). The engine asks once for every attempt that a freed worker
   * (or every worker freed in one turn) is about to begin, except rows whose claim was answered in
   * that very turn. A store may answer synchronously (SQLite reads its own connection) or with a
   * Promise (one round trip, no write). Absent: every run is taken to be still this engine's.
   */
  confirmRuns?(checks: readonly RunCheck[]): RunCheckAnswer | Promise<RunCheckAnswer>;
  /**
   * Optional, synchronous: the engine dropped a row it reserved without starting it, for a reason
   * the store's own writes did not carry (a cancel it heard of); what the store kept of that
   * reservation is let go.
   */
  forgetReservation?(id: string, reservedAt: number): void;
  /**
   * Optional, synchronous: a count that moves once a write of this process that may take Queued
   * rows from their reservations (a cancel by id or in bulk, a schedule cancel, a definition
   * change) has ended, before its caller hears of it. The engine reads it before a commit with
   * claims or a run check is sent and again at its answer: when it moved, the answer may predate a
   * cancel whose own answer already came, so no handler begins on it without a new run check.
   * Absent: the store's answers are never older than what this process was told (SQLite answers
   * on the writer's own connection).
   */
  rowsTakenAway?(): number;
  /**
   * The store keeps rate windows shared by every process on it (it decides claims from
   * `DispatchStep.rateLimits`): a retry's start is then asked of those windows too
   * (`CommitBatch.retryStarts`), not of this process's. Absent: this process's windows decide.
   */
  readonly sharedRateWindows?: boolean;
  /**
   * Optional, for stores shared by several hosts: now on the one clock they share (the
   * database's, as this host reads it), ms since the epoch. An engine given no `clock` takes its
   * time from it, so every instant it writes for another process to compare is on that clock.
   */
  now?(): number;
  /** Optional, with `now`: this host's clock minus the shared one, ms, as last measured. */
  clockOffsetMs?(): number;
  /**
   * Optional, for stores shared by several processes: called at the end of a stop's grace period
   * with a promise that resolves once every handler the engine called has settled. Until then a
   * run the stop left ServiceStopped may still be running here, and no other process may take it.
   */
  handlersOutliveStop?(settled: Promise<void>): void;
}

export interface LeaseState {
  /** The error of the last heartbeat, null once one was written again. */
  failing: unknown;
  /** No heartbeat written for longer than the lease, or none written yet by this process. */
  expired: boolean;
  /** How many times this process learnt that its lease had lapsed (see onLeaseLost). */
  lapses: number;
}

/** A lapse of this process's lease, as it learnt of it. */
export interface LeaseLapse {
  /** Milliseconds (this host's monotonic clock) since the last heartbeat written before the lapse was sent. */
  sinceRenewalMs: number;
}

/**
 * Thrown (rejected) by a store when nothing was applied and the same call may succeed later:
 * the database is locked by another process, the disk is full, an I/O error, a lost connection.
 * The engine keeps the work in memory and tries again with backoff. Any other error means the
 * input itself was refused.
 */
export class StoreUnavailableError extends Error {
  constructor(
    message: string,
    /** The underlying error code (e.g. SQLITE_BUSY, SQLITE_FULL). */
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** Whether a durable schedule row (never runs a handler itself; its occurrences do). */
export function isScheduleRow(row: Pick<ScheduleRow, 'is_recurring' | 'occurrence_mode' | 'parent_task_id'>): boolean {
  return row.is_recurring === 1 && row.occurrence_mode === 'Durable' && row.parent_task_id === null;
}

export type LocationCheck = { ok: true } | { ok: false; reason: string };

export interface RecoverInput {
  now: number;
  /** Queues without a capacity limit: all their WaitingQueue rows are admitted. */
  unlimitedQueues: readonly string[];
  /**
   * Each recovery of an InProgress row (its process died or lost its lease) counts as an abandoned
   * run; a row abandoned more than this many times ends Failed instead of Queued. Default 3. A
   * store that also recovers later (lease recovery, a claim's takeover of another instance's
   * lapsed reservation) keeps this and `onAbandoned` for those.
   */
  maxAbandoned?: number;
  /** Rows a recovery ended Failed (after their transaction committed). */
  onAbandoned?: (failed: AbandonedTask[]) => void;
}

/** Queue name → capacity (Queued rows admitted), for queues that have a limit. */
export type QueueCapacities = ReadonlyMap<string, number>;

/**
 * One group commit. Applied in this order, in one transaction:
 * 1. `logs` (execution log rows), 2. `insertTasks`, 3. `cancels`, 4. `startRuns`, 5. `attemptFailures`,
 * 6. `completeRuns`, 7. `serviceStopped`, 8. `releases`, then, when `dispatching` is set:
 * 9. admission from WaitingQueue, 10. promotion of due Pending rows, 11. claims (reservations),
 * 12. admission again.
 */
export interface CommitBatch {
  /** Engine clock: audit times, started_at, due checks. */
  now: number;
  logs: readonly NewExecutionLog[];
  insertTasks: readonly NewTask[];
  cancels: readonly string[];
  /** Handlers that began: their reserved rows become InProgress (absent: none). */
  startRuns?: readonly StartedRun[];
  attemptFailures: readonly AttemptFailure[];
  completeRuns: readonly FinishedRun[];
  serviceStopped: readonly StoppedRun[];
  /** Reserved rows handed back unstarted: their reservation is dropped, they stay Queued (absent: none). */
  releases?: readonly Reservation[];
  /**
   * Retries whose backoff is over, asking the shared rate windows for their start (stores with
   * `sharedRateWindows` only; decided before the claims, absent: none).
   */
  retryStarts?: readonly RetryStart[];
  /** Capacities used by admission of new and promoted rows and by WaitingQueue admission. */
  capacities: QueueCapacities;
  dispatching: DispatchStep | null;
}

export interface DispatchStep {
  /** Promote up to this many due Pending rows (0: skip promotion). */
  promoteLimit: number;
  /**
   * Claims: per queue, up to `limit` of its oldest claimable Queued rows, reserved for this engine
   * (they stay Queued, marked `reserved_by`/`reserved_at`). A row reserved by anyone less than
   * `reservationMs` ago is not claimable.
   */
  claims: readonly { queue: string; limit: number }[];
  /** How long a reservation holds a row against other claims (ms). */
  reservationMs: number;
  /** Types this engine has handlers for: only rows of these types are claimed. */
  types: readonly string[];
  /**
   * Rate limits: per candidate (its `reserved_at` set to the claim's instant), run it (true) or
   * leave it Queued and throttled until the returned instant. Null when no handled type has a
   * rate limit: every candidate is claimed.
   */
  decide: ClaimDecider | null;
  /**
   * The rate limit of each handled type that has one (absent when none has). A store shared by
   * several processes keeps the windows itself, so that the limit holds across all of them, and
   * then decides instead of `decide` (whose windows are this process's starts only).
   */
  rateLimits?: ReadonlyMap<string, RateLimitSpec>;
}

/** At most `limit` starts per sliding `windowMs`, per type (per rate-limit key when a row has one). */
export interface RateLimitSpec {
  limit: number;
  windowMs: number;
}

export type ClaimDecider = (row: RunnableTaskRow) => true | number;

/** A rate-limited retry asking for its start: counted in its window at the commit's instant, or not yet. */
export interface RetryStart {
  id: string;
  type: string;
  rateLimitKey: string | null;
  rateLimit: RateLimitSpec;
}

export interface CommitOutcome {
  /** Ids of the written log rows, in the order of `logs`. */
  logIds: number[];
  /** One per `insertTasks` entry. */
  inserted: InsertOutcome[];
  /** One per `cancels` entry. */
  cancelled: CancelOutcome[];
  /** One per `startRuns` entry: false when the row was no longer reserved by this store (cancelled, taken over). */
  started: boolean[];
  /** One per `attemptFailures` entry: false when the row was no longer InProgress. */
  attemptsRecorded: boolean[];
  /** One per `completeRuns` entry: false when the row no longer carried the run (nothing recorded). */
  finished: boolean[];
  /** One per `serviceStopped` entry. */
  stopped: boolean[];
  /** Pending rows promoted (equal to promoteLimit: there may be more). */
  promoted: number;
  /** Rows claimed (reserved for this store, still Queued), oldest first per queue. */
  claimed: RunnableTaskRow[];
  /** One per `retryStarts` entry: true (its start counted now) or the instant its window has room. */
  retryStarts?: (true | number)[];
}

/** A new task (dispatch or inline recurring). The store decides its first status. */
export interface NewTask {
  id: string;
  type: string;
  handler: string;
  /** Request, JSON text. */
  request: string;
  queue: string;
  taskKey: string | null;
  auditLevel: AuditLevel;
  createdAt: number;
  /** Stored scheduled_at (null: run as soon as possible). */
  scheduledAt: number | null;
  /** When the task is due; due now (and not recurring) → Queued or WaitingQueue, else Pending. */
  dueAt: number;
  retryPolicy: string | null;
  timeoutMs: number | null;
  rateLimitKey: string | null;
  isRecurring: boolean;
  recurrence: string | null;
  /** W3C trace context of the dispatch (absent or null: none). */
  traceparent?: string | null;
  tracestate?: string | null;
}

/**
 * What became of a new task. With a task key, an open (non-terminal) row with that key wins:
 * `existing` is true and, when that row is Pending, its request, due time and recurrence are
 * replaced.
 */
export interface InsertOutcome {
  id: string;
  existing: boolean;
  status: TaskStatus;
}

export type CancelOutcome =
  | { result: 'Cancelled'; task: TaskState }
  | { result: 'NotFound' }
  | { result: 'NotCancellable'; task: TaskState };

/** The few columns the engine needs to act on one row by id. */
export interface TaskState {
  id: string;
  type: string;
  handler: string;
  request: string;
  queue: string;
  status: TaskStatus;
  audit_level: AuditLevel;
  parent_task_id: string | null;
  is_schedule: 0 | 1;
}

/** A reservation this store holds: the row and the instant it was reserved (as the claim returned it). */
export interface Reservation {
  id: string;
  reservedAt: number;
}

/**
 * A run about to begin a handler attempt: the reservation it was claimed under and, for a retry
 * (its start committed), its run token (null for a first attempt). A first attempt is still this
 * engine's when its row is Queued under that very reservation; a retry when its row is InProgress
 * under that token.
 */
export interface RunCheck extends Reservation {
  token: string | null;
}

/**
 * One answer per RunCheck, in order: true, begin; false, the row was cancelled, re-queued or taken
 * by another process (no attempt begins; nothing more of the run is written); null, the row is
 * still this engine's but this process's lease is not surely alive (other processes may be about
 * to take its rows): it waits, and the engine asks again after a heartbeat.
 */
export type RunCheckAnswer = (boolean | null)[];

/** A handler began on a reserved row: the row becomes InProgress at `startedAt` under `token`. */
export interface StartedRun extends Reservation {
  auditLevel: AuditLevel;
  startedAt: number;
  /** Names this run (the engine instance and the run); every later write of the run names it. */
  token: string;
}

/**
 * The writes that end, fail or stop a run apply only to a row that is InProgress under the
 * run's `token`; otherwise (recovered and re-claimed since) they change nothing.
 */
export interface AttemptFailure {
  id: string;
  token: string;
  attempt: number;
  exception: string;
}

export interface StoppedRun {
  id: string;
  token: string;
  auditLevel: AuditLevel;
}

/** The end of one run (or of a cancelled run), recorded on an InProgress row. */
export interface FinishedRun {
  id: string;
  token: string;
  auditLevel: AuditLevel;
  /** End of the run: last_execution_at, runs_audit.executed_at, audit time. */
  endedAt: number;
  /** Measured around the handler; 0 when the run threw. */
  executionTimeMs: number;
  /** Completed or Failed counts as a finished run (run_count + 1); Cancelled does not. */
  outcome: 'Completed' | 'Failed' | 'Cancelled';
  exception: string | null;
  /** The status the row moves to: Completed, Failed, Cancelled, or Pending (inline recurring, next run). */
  nextStatus: 'Completed' | 'Failed' | 'Cancelled' | 'Pending';
  /** Due time of the next inline recurring run (nextStatus Pending). */
  nextScheduledAt: number | null;
  /** Inline recurring row: writes a runs-audit row for the run (subject to the audit level). */
  recurring: boolean;
}

export interface NewExecutionLog {
  taskId: string;
  timestamp: number;
  level: LogLevel;
  message: string;
  exceptionDetails: string | null;
  sequenceNumber: number;
}

/** The columns the engine reads back to run a claimed row. */
export interface RunnableTaskRow {
  id: string;
  type: string;
  handler: string;
  request: string;
  queue: string;
  status: TaskStatus;
  task_key: string | null;
  audit_level: AuditLevel;
  created_at: number;
  scheduled_at: number | null;
  attempt: number;
  retry_policy: string | null;
  timeout_ms: number | null;
  rate_limit_key: string | null;
  is_recurring: 0 | 1;
  recurrence: string | null;
  run_count: number;
  parent_task_id: string | null;
  /** Highest execution-log sequence number of the task so far (0: none); numbering continues. */
  last_log_sequence: number;
  /** Runs of this task abandoned while running (process died, lease lost) and recovered. */
  abandoned_count: number;
  /** W3C trace context stored at dispatch (null: none). */
  traceparent?: string | null;
  tracestate?: string | null;
  /** When the claim reserved the row (engine clock); the start write names it. */
  reserved_at: number;
  /**
   * The reservation of this same store (engine instance) that the row still carried when the claim
   * took it, its hold over (the `reserved_at` it had then); null when the row carried none of
   * this store's. The engine may have begun a handler under that reservation whose start is not
   * written yet: that run goes on under the new reservation (no second one begins).
   */
  reclaimed_from: number | null;
}

// ------------------------------------------------------------------ durable schedules

/** The columns of a durable schedule row (or occurrence) that the schedule operations read. */
export interface ScheduleRow {
  id: string;
  type: string;
  handler: string;
  request: string;
  queue: string;
  status: TaskStatus;
  task_key: string | null;
  audit_level: AuditLevel;
  is_recurring: number;
  occurrence_mode: string | null;
  schedule_version: number | null;
  schedule_definition: string | null;
  cursor_at: number | null;
  halt: string | null;
  parent_task_id: string | null;
  scheduled_at: number | null;
  created_at: number;
  traceparent?: string | null;
  tracestate?: string | null;
}

/** Halt block of a schedule, stored as JSON with UTC ISO timestamps. */
export interface StoredHalt {
  atUtc: string;
  reason: 'OverflowCapExceeded';
  detectedAtLeast: number;
  isExact: boolean;
  cursorUtc: string;
  scheduleVersion: number;
}

export interface NewOccurrence {
  type: string;
  handler: string;
  request: string;
  queue: string;
  auditLevel: AuditLevel;
  createdAt: number;
  scheduledAt: number;
  timeZoneId: string;
  scheduleVersion: number;
  parentTaskId: string;
  nominalSlotAt: number;
  runNumber: number;
  misfireKind: MisfireKind;
  missedFrom: number | null;
  missedThrough: number | null;
  missedCount: number | null;
  missedCountIsExact: number | null;
  /** The schedule's trace context (its last upsert's), which the occurrence's runs link to. */
  traceparent?: string | null;
  tracestate?: string | null;
}

/** What one planning pass writes for one schedule. */
export type ScheduleWrite =
  /** Over the overflow cap: the schedule halts (nothing else written); the next slot is shown. */
  | { kind: 'halt'; halt: StoredHalt; nextSlotAt: number | null }
  /**
   * Occurrences (Pending, one 'Pending' audit each; a slot that already has one is skipped),
   * the new cursor and next slot; `completed`: the bounded series is over (schedule → Completed).
   */
  | { kind: 'progress'; occurrences: NewOccurrence[]; cursorAt: number; nextSlotAt: number | null; completed: boolean };

/** Plans one schedule inside the transaction: null when there is nothing to write. */
export type SchedulePlanner<T> = (row: ScheduleRow, lastRunNumber: number) => { write: ScheduleWrite; note: T } | null;

export interface MaterializeInput<T> {
  /**
   * The next schedule row id to visit, undefined when there is none left for this transaction.
   * Called only for an id the transaction will visit: an id handed out is this transaction's
   * (transactions running at once share one queue of ids, each id visited by one of them).
   */
  nextId: () => string | undefined;
  now: number;
  /** Stop taking schedules once this many occurrences are collected (the rest: next call). */
  rowsPerTransaction: number;
  /** Called for each active, non-halted schedule row (re-read inside the transaction). */
  plan: SchedulePlanner<T>;
  /** Ids of new occurrences, called in slot order (time-ordered ids keep inserts appending). */
  newId: () => string;
  /**
   * A transaction with at least this many occurrences of missed work (misfire kind CatchUp: a
   * catch-up) writes its occurrences compact where the store has that form (SQLite, migration 15);
   * undefined: never.
   */
  compactFrom?: number;
}

export interface MaterializeResult<T> {
  /** Occurrence rows written. */
  written: number;
  /** Notes of the plans applied, in visiting order. */
  notes: T[];
}

export interface NewScheduleRow {
  id: string;
  type: string;
  handler: string;
  request: string;
  queue: string;
  taskKey: string;
  auditLevel: AuditLevel;
  createdAt: number;
  nextSlotAt: number | null;
  misfirePolicy: MisfirePolicy;
  timeZoneId: string;
  definitionJson: string;
  cursorAt: number;
  /** W3C trace context (see NewTask): the upsert's, copied to every occurrence. */
  traceparent: string | null;
  tracestate: string | null;
}

export interface ScheduleDefinitionChange {
  id: string;
  type: string;
  handler: string;
  request: string;
  queue: string;
  auditLevel: AuditLevel;
  status: 'Pending' | 'Completed';
  nextSlotAt: number | null;
  misfirePolicy: MisfirePolicy;
  timeZoneId: string;
  scheduleVersion: number;
  definitionJson: string;
  /** W3C trace context (see NewTask): the upsert's, copied to every occurrence. */
  traceparent: string | null;
  tracestate: string | null;
}

export interface OpenOccurrence {
  id: string;
  nominal_slot_at: number;
  schedule_version: number;
  audit_level: AuditLevel;
}

/** What upsert does, decided inside the transaction from the current row (throwing aborts it). */
export type UpsertDecision =
  | { kind: 'insert'; row: NewScheduleRow }
  | { kind: 'keep'; id: string }
  | {
      kind: 'update';
      change: ScheduleDefinitionChange;
      /** Open (not started) occurrences for which this returns true are cancelled. */
      cancelOccurrence: (o: OpenOccurrence) => boolean;
    };

export interface UpsertInput {
  key: string;
  now: number;
  decide: (existing: ScheduleRow | undefined, lastRunNumber: number) => UpsertDecision;
}

export interface ScheduleStore {
  findByKey(key: string): Promise<ScheduleRow | undefined>;
  findById(id: string): Promise<ScheduleRow | undefined>;
  /** Active, non-halted schedule rows whose next slot is at or before `until`. */
  dueScheduleIds(until: number): Promise<string[]>;
  /** One transaction over the schedules `input.nextId` hands out; see MaterializeInput. */
  materialize<T>(input: MaterializeInput<T>): Promise<MaterializeResult<T>>;
  /**
   * How many materialize transactions the materializer runs at once by default (1 when absent):
   * more than one only where the store's transactions over disjoint schedules proceed side by
   * side (PostgreSQL: each on its own server backend).
   */
  readonly materializeConcurrency?: number;
  /** Creates or changes a schedule in one transaction; resolves with the schedule row's id. */
  upsert(input: UpsertInput): Promise<string>;
  /** The schedule → Cancelled (halt dropped), its not-started occurrences → Cancelled. */
  cancel(id: string, now: number): Promise<OperationResult>;
  /** Drops the halt of a schedule; false when it had none. */
  releaseHalt(id: string): Promise<boolean>;
  /** A Failed or Cancelled occurrence of a live schedule → Queued (one 'Queued' audit). */
  requeueOccurrence(id: string, now: number): Promise<OperationResult>;
}
