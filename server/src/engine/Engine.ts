import { performance } from 'node:perf_hooks';
import type { Database } from 'better-sqlite3';
import type { AuditLevel, SvcEvent, SvcEventKind } from '../contracts/index.js';
import { prepareEngineStatements, type EngineStatements, type FinishedRun, type RunnableTaskRow } from '../storage/sql/index.js';
import type { SqliteStorage } from '../storage/Storage.js';
import { buildEvent } from './buildEvent.js';
import type { EngineInternals } from './EngineInternals.js';
import { RateLimiter } from './RateLimiter.js';
import { resolveRegistration, type Registration } from './handlerRegistration.js';
import { ServiceStoppingError, TaskCancelledError, TaskTimeoutError } from './runErrors.js';
import { nextDue, type Recurrence } from './Recurrence.js';
import { planDispatch, planRecurring, type DispatchPlan, type PlanningContext } from './planTask.js';
import { resolveEngineOptions, type QueueConfig, type ResolvedEngineOptions } from './resolveEngineOptions.js';
import { backoffDelay, resolveRetryPolicy, type RetryPolicy } from './RetryPolicy.js';
import { RunLog, type PendingLog } from './RunLog.js';
import { createTaskOperations, type TaskOperations } from './operations/TaskOperations.js';
import { createScheduleManager } from './schedules/index.js';
import { createSqliteTaskManagementStore } from '../storage/sqlite/createSqliteTaskManagementStore.js';
import type { ScheduleManager } from './schedules/ScheduleManager.js';
import type {
  CancelResult, DispatchOptions, Engine, EngineEventListener, EngineOptions, HandleOptions, RecurringOptions,
  StopOptions, TaskContext, TaskHandler,
} from './types.js';
import { assertKnownKeys, assertPlainObject, checkInt, errorMessage, errorText } from './validation.js';

interface QueueState extends QueueConfig {
  /** Handlers running now. */
  running: number;
  /** Runs whose retry backoff is over, waiting for a free worker (they are InProgress already). */
  ready: ActiveRun[];
}

interface ActiveRun {
  row: RunnableTaskRow;
  reg: Registration;
  queue: QueueState;
  retry: RetryPolicy;
  timeoutMs: number | undefined;
  /** Attempt number of the current (or next) attempt, 1-based. */
  attempt: number;
  token: number;
  phase: 'running' | 'retryWait' | 'finished';
  controller: AbortController;
  log: RunLog;
  cancelRequested: boolean;
  t0: number;
  timer: NodeJS.Timeout | undefined;
}

/** A write due in the next group commit: applied inside the transaction; its result acts after commit. */
interface WriteOp {
  apply(now: number): (() => void) | void;
  fail(err: unknown): void;
}

interface PendingFinish {
  run: FinishedRun;
  after: () => void;
  /** Called when the row was no longer InProgress (nothing recorded). */
  lost: (() => void) | undefined;
}

interface Ticker {
  name: string;
  tick: (nowMs: number) => void;
  intervalMs: number;
  timer: NodeJS.Timeout | undefined;
}

const MAX_OPS_PER_COMMIT = 4000;
const PROMOTE_BATCH = 1000;


const roundMs = (ms: number) => Math.round(ms * 1000) / 1000;

/** The background-task engine (DESIGN §4): one writer connection, group commit, workers per queue. */
export class TaskEngine implements Engine {
  readonly storage: SqliteStorage;
  readonly schedules: ScheduleManager;
  /** Retry and bulk actions (management). */
  readonly tasks: TaskOperations;
  readonly queueNames: readonly string[];

  private readonly o: ResolvedEngineOptions;
  private readonly db: Database;
  private readonly sql: EngineStatements;
  private readonly registry = new Map<string, Registration>();
  private typesJson = '[]';
  private readonly queues = new Map<string, QueueState>();
  private readonly active = new Map<string, ActiveRun>();
  private readonly listeners = new Set<EngineEventListener>();
  private readonly limiter = new RateLimiter();
  private readonly tickers: Ticker[] = [];
  private readonly planning: PlanningContext;

  private ops: WriteOp[] = [];
  private finishes: PendingFinish[] = [];
  private logs: PendingLog[] = [];
  private running = false;
  private stopping: Promise<void> | undefined;
  private flushScheduled = false;
  private flushing = false;
  private pollTimer: NodeJS.Timeout | undefined;
  /** Earliest known due time of a Pending row; -Infinity: look now. */
  private dueHint = -Infinity;

  constructor(options: EngineOptions) {
    this.o = resolveEngineOptions(options);
    this.storage = this.o.storage;
    this.db = this.storage.db;
    this.sql = prepareEngineStatements(this.db);
    for (const q of this.o.queues.values()) this.queues.set(q.name, { ...q, running: 0, ready: [] });
    this.queueNames = [...this.queues.keys()];
    this.planning = {
      handlerOf: (type) => this.registry.get(type),
      hasQueue: (name) => this.queues.has(name),
      defaultRetry: this.o.retry,
      defaultAuditLevel: this.o.auditLevel,
      now: () => this.o.clock(),
    };
    const internals: EngineInternals = {
      db: this.db,
      now: () => this.o.clock(),
      emit: (e) => this.emit(e),
      wake: () => this.wake(),
      addTicker: (name, tick, intervalMs) => this.addTicker(name, tick, intervalMs),
      defaultAuditLevel: this.o.auditLevel,
      handlerNameOf: (type) => this.registry.get(type)?.handlerName,
      resolveQueue: (queue) => (queue !== undefined && this.queues.has(queue) ? queue : 'default'),
      isRunning: () => this.running,
    };
    this.schedules = createScheduleManager(internals);
    this.tasks = createTaskOperations({
      store: createSqliteTaskManagementStore(this.db),
      now: () => this.o.clock(),
      emit: (e) => this.emit(e),
      wake: () => this.wake(),
      onError: (err, where) => this.o.onError(err, where),
    });
  }

  // ---------------------------------------------------------------- registration and events

  handle<TRequest = unknown>(type: string, handler: TaskHandler<TRequest>, options: HandleOptions = {}): Engine {
    const registration = resolveRegistration(type, handler, options, this.o.retry);
    if (this.registry.has(type)) throw new Error(`handle("${type}"): a handler is already registered for this type`);
    this.registry.set(type, registration);
    this.typesJson = JSON.stringify([...this.registry.keys()]);
    if (this.running) this.wake();
    return this;
  }

  on(event: 'event', listener: EngineEventListener): Engine {
    if (event !== 'event') throw new TypeError(`on: unknown event "${String(event)}" (only 'event')`);
    if (typeof listener !== 'function') throw new TypeError('on: listener must be a function');
    this.listeners.add(listener);
    return this;
  }

  off(event: 'event', listener: EngineEventListener): Engine {
    if (event === 'event') this.listeners.delete(listener);
    return this;
  }

  isRunning(): boolean {
    return this.running;
  }

  private emit(event: SvcEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        this.o.onError(err, `event listener (${event.kind})`);
      }
    }
  }

  // ---------------------------------------------------------------- dispatch

  async dispatch(type: string, request?: unknown, options: DispatchOptions = {}): Promise<string> {
    const plan = planDispatch(this.planning, type, request, options);
    return this.write((t) => this.insertPlanned(plan, t));
  }

  async recurring(type: string, request?: unknown, options: RecurringOptions = {}): Promise<string> {
    const plan = planRecurring(this.planning, type, request, options);
    return this.write((t) => this.insertPlanned(plan, t, true));
  }

  /** Inside the commit: task-key dedup, admission (capacity), insert + audit. Returns the row's id. */
  private insertPlanned(p: DispatchPlan, now: number, recurring = false): string {
    const recurrence = p.recurrence === null ? null : JSON.stringify(p.recurrence);
    if (p.taskKey !== null) {
      const open = this.sql.findOpenTaskByKey(p.taskKey);
      if (open !== undefined) {
        if (open.status === 'Pending') {
          this.sql.updatePendingTask({ id: open.id, request: p.request, scheduledAt: p.dueAt, recurrence });
          this.dueHint = Math.min(this.dueHint, p.dueAt);
        }
        return open.id;
      }
    }
    const dueNow = !recurring && p.dueAt <= now;
    const status = dueNow ? this.admission(p.queue) : 'Pending';
    this.sql.insertTask({
      id: p.id,
      type: p.type,
      handler: p.handler,
      request: p.request,
      queue: p.queue,
      status,
      taskKey: p.taskKey,
      auditLevel: p.auditLevel,
      createdAt: p.createdAt,
      scheduledAt: p.scheduledAt,
      retryPolicy: p.retryPolicy,
      timeoutMs: p.timeoutMs,
      rateLimitKey: p.rateLimitKey,
      isRecurring: recurring,
      recurrence,
    });
    if (status === 'Pending') this.dueHint = Math.min(this.dueHint, p.dueAt);
    return p.id;
  }

  /** Queued when the queue has room (capacity counts Queued rows), else WaitingQueue. */
  private admission(queue: string): 'Queued' | 'WaitingQueue' {
    const q = this.queues.get(queue);
    if (q === undefined || q.capacity === Infinity) return 'Queued';
    return this.sql.countQueued(queue) < q.capacity ? 'Queued' : 'WaitingQueue';
  }

  /** Queues a write for the next group commit and resolves with its result after the commit. */
  private write<T>(apply: (now: number) => T, after?: (result: T) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.ops.push({
        apply: (now) => {
          const result = apply(now);
          return () => {
            after?.(result);
            resolve(result);
          };
        },
        fail: reject,
      });
      this.scheduleFlush();
    });
  }

  // ---------------------------------------------------------------- cancel

  async cancel(id: string): Promise<CancelResult> {
    if (typeof id !== 'string' || id.length === 0) throw new TypeError('cancel: id must be a task id (GUID string)');
    const run = this.active.get(id);
    if (run !== undefined) {
      if (run.phase === 'running') {
        if (!run.cancelRequested) {
          run.cancelRequested = true;
          run.controller.abort(new TaskCancelledError('The task was cancelled'));
        }
        return 'Cancelling';
      }
      if (run.phase === 'retryWait') {
        this.leaveRetryWait(run);
        return new Promise<CancelResult>((resolve) => {
          this.finish(run, 'Cancelled', 0, null, false, () => resolve('Cancelled'), () => resolve('NotCancellable'));
        });
      }
    }
    return this.write((now) => {
      const st = this.sql.readTaskState(id);
      if (st === undefined) return { result: 'NotFound' as const };
      if (st.is_schedule === 1) return { result: 'NotCancellable' as const };
      if (!this.sql.cancelWaitingTask(id, st.audit_level, now)) return { result: 'NotCancellable' as const };
      return { result: 'Cancelled' as const, event: buildEvent('Cancelled', now, st, 'Task cancelled') };
    }, (r) => {
      if (r.event) this.emit(r.event);
    }).then((r) => r.result);
  }

  private leaveRetryWait(run: ActiveRun): void {
    clearTimeout(run.timer);
    run.timer = undefined;
    const i = run.queue.ready.indexOf(run);
    if (i >= 0) run.queue.ready.splice(i, 1);
    run.phase = 'finished';
  }

  // ---------------------------------------------------------------- start / stop

  async start(): Promise<void> {
    if (this.stopping) await this.stopping;
    if (this.running) return;
    if (this.storage.closed) throw new Error('start: the storage is closed');
    this.running = true;
    this.dueHint = -Infinity;
    this.ops.unshift({
      apply: (now) => {
        this.sql.recoverTasks(now);
        // WaitingQueue rows of queues without a capacity limit (e.g. the limit was removed): admit all.
        for (const q of this.queues.values()) {
          if (q.capacity === Infinity) this.sql.admitWaitingTasks(q.name, Number.MAX_SAFE_INTEGER, now);
        }
      },
      fail: (err) => this.o.onError(err, 'recovery'),
    });
    this.flush();
    for (const t of this.tickers) this.startTicker(t);
  }

  async stop(options: StopOptions = {}): Promise<void> {
    assertPlainObject(options, 'stop: options');
    assertKnownKeys(options, new Set(['graceMs']), 'stop');
    const graceMs = checkInt(options.graceMs, 'stop: option "graceMs"', 0) ?? this.o.stopGraceMs;
    if (this.stopping) return this.stopping;
    if (!this.running) return;
    this.stopping = this.doStop(graceMs).finally(() => {
      this.stopping = undefined;
    });
    return this.stopping;
  }

  private async doStop(graceMs: number): Promise<void> {
    clearTimeout(this.pollTimer);
    for (const t of this.tickers) {
      clearInterval(t.timer);
      t.timer = undefined;
    }
    for (const run of [...this.active.values()]) if (run.phase === 'retryWait') this.abandon(run);
    const deadline = Date.now() + graceMs;
    while (this.countRunning() > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, Math.min(5, Math.max(1, deadline - Date.now()))));
    }
    for (const run of [...this.active.values()]) this.abandon(run);
    while (this.ops.length > 0 || this.finishes.length > 0 || this.logs.length > 0) this.flush();
    this.running = false;
    clearTimeout(this.pollTimer);
  }

  private countRunning(): number {
    let n = 0;
    for (const r of this.active.values()) if (r.phase === 'running') n++;
    return n;
  }

  /** Engine stops: the run is given up; its row becomes ServiceStopped; a late outcome is ignored. */
  private abandon(run: ActiveRun): void {
    if (run.phase === 'running') {
      run.queue.running--;
      run.controller.abort(new ServiceStoppingError('The engine is stopping'));
    }
    this.leaveRetryWait(run);
    run.log.close();
    this.active.delete(run.row.id);
    const { id, audit_level } = run.row;
    this.ops.push({
      apply: (now) => void this.sql.markServiceStopped(id, audit_level, now),
      fail: (err) => this.o.onError(err, 'mark ServiceStopped'),
    });
  }

  // ---------------------------------------------------------------- tickers (schedules)

  private addTicker(name: string, tick: (nowMs: number) => void, intervalMs: number): void {
    if (!Number.isFinite(intervalMs) || intervalMs < 1) throw new RangeError(`addTicker("${name}"): intervalMs must be >= 1`);
    const t: Ticker = { name, tick, intervalMs, timer: undefined };
    this.tickers.push(t);
    if (this.running && !this.stopping) this.startTicker(t);
  }

  private startTicker(t: Ticker): void {
    const run = () => {
      if (!this.running || this.stopping) return;
      try {
        t.tick(this.o.clock());
      } catch (err) {
        this.o.onError(err, `ticker ${t.name}`);
      }
      this.wake();
    };
    clearInterval(t.timer);
    t.timer = setInterval(run, t.intervalMs);
    run();
  }

  // ---------------------------------------------------------------- the group commit loop

  private wake(): void {
    this.dueHint = -Infinity;
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  /**
   * One group commit: execution logs, queued writes (dispatches, cancels, ...), finished runs,
   * promotion of due Pending rows, admission from WaitingQueue, and claims for free workers —
   * one transaction, each change with its own audit row. Events and handlers start after commit.
   */
  private flush(): void {
    if (this.flushing) return;
    this.flushing = true;
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    try {
      const canClaim = this.running && this.stopping === undefined && !this.storage.closed;
      if (canClaim) this.startReadyRetries();
      const ops = this.ops.length <= MAX_OPS_PER_COMMIT ? this.ops : this.ops.slice(0, MAX_OPS_PER_COMMIT);
      this.ops = ops === this.ops ? [] : this.ops.slice(MAX_OPS_PER_COMMIT);
      const finishes = this.finishes;
      this.finishes = [];
      const logs = this.logs;
      this.logs = [];
      if (this.storage.closed) {
        const err = new Error('The storage is closed');
        for (const op of ops) op.fail(err);
        return;
      }
      const now = this.o.clock();
      const after: (() => void)[] = [];
      let claimed: RunnableTaskRow[] = [];
      try {
        this.db.transaction(() => {
          for (const l of logs) l.entry.id = this.sql.insertExecutionLog(l.row);
          if (canClaim) this.admitWaiting(now);
          for (const op of ops) {
            const a = op.apply(now);
            if (a) after.push(a);
          }
          if (finishes.length > 0) {
            const recorded = new Set(this.sql.completeTasks(finishes.map((f) => f.run)));
            for (const f of finishes) {
              if (recorded.has(f.run)) after.push(f.after);
              else if (f.lost) after.push(f.lost);
            }
          }
          if (canClaim) {
            this.promoteDue(now);
            claimed = this.claim(now);
            this.admitWaiting(now);
          }
        }).immediate();
      } catch (err) {
        // Isolate the failing write: every part again in its own transaction.
        after.length = 0;
        claimed = [];
        this.o.onError(err, 'group commit (retrying its writes one by one)');
        this.isolated(() => {
          for (const l of logs) l.entry.id = this.sql.insertExecutionLog(l.row);
        }, (e) => this.o.onError(e, 'execution logs'));
        for (const op of ops) {
          this.isolated(() => {
            const a = op.apply(now);
            if (a) after.push(a);
          }, op.fail);
        }
        for (const f of finishes) {
          this.isolated(() => {
            if (this.sql.completeTasks([f.run]).length === 1) after.push(f.after);
            else if (f.lost) after.push(f.lost);
          }, (e) => this.o.onError(e, 'record finished run'));
        }
      }
      for (const a of after) {
        try {
          a();
        } catch (err) {
          this.o.onError(err, 'after commit');
        }
      }
      for (const row of claimed) this.startClaimed(row);
    } finally {
      this.flushing = false;
    }
    if (this.ops.length > 0 || this.finishes.length > 0 || this.logs.length > 0) this.scheduleFlush();
    else this.armPollTimer();
  }

  private isolated(work: () => void, fail: (err: unknown) => void): void {
    try {
      this.db.transaction(work).immediate();
    } catch (err) {
      fail(err);
    }
  }

  private armPollTimer(): void {
    if (!this.running || this.stopping !== undefined || this.flushScheduled || this.storage.closed) return;
    const now = this.o.clock();
    let delay = this.o.pollIntervalMs;
    try {
      const next = this.sql.nextWakeAt(now);
      if (next !== null) delay = Math.min(delay, Math.max(next - now, 2));
    } catch (err) {
      this.o.onError(err, 'next wake');
    }
    clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(() => {
      this.pollTimer = undefined;
      this.dueHint = -Infinity;
      this.flush();
    }, delay);
  }

  private promoteDue(now: number): void {
    if (now < this.dueHint) return;
    const n = this.sql.promoteDueTasks(now, PROMOTE_BATCH, (queue) => this.admission(queue));
    this.dueHint = n >= PROMOTE_BATCH ? -Infinity : Infinity;
    if (n >= PROMOTE_BATCH) this.scheduleFlush();
  }

  private admitWaiting(now: number): void {
    for (const q of this.queues.values()) {
      if (q.capacity === Infinity) continue;
      const room = q.capacity - this.sql.countQueued(q.name);
      if (room > 0) this.sql.admitWaitingTasks(q.name, room, now);
    }
  }

  private claim(now: number): RunnableTaskRow[] {
    if (this.registry.size === 0) return [];
    const out: RunnableTaskRow[] = [];
    for (const q of this.queues.values()) {
      const free = q.concurrency - q.running - q.ready.length;
      if (free <= 0) continue;
      const rows = this.sql.claimTasks(q.name, this.typesJson, free, now, (row) => {
        const limit = this.registry.get(row.type)?.rateLimit;
        if (limit === undefined) return true;
        const key = row.rate_limit_key === null ? row.type : `${row.type}\u0000${row.rate_limit_key}`;
        return this.limiter.take(key, limit, now);
      }, (type) => this.registry.has(type));
      for (const r of rows) out.push(r);
    }
    return out;
  }

  // ---------------------------------------------------------------- running handlers

  private startReadyRetries(): void {
    for (const q of this.queues.values()) {
      while (q.ready.length > 0 && q.running < q.concurrency) {
        const run = q.ready.shift()!;
        if (run.phase === 'retryWait') this.beginAttempt(run);
      }
    }
  }

  private startClaimed(row: RunnableTaskRow): void {
    const reg = this.registry.get(row.type);
    const queue = this.queues.get(row.queue);
    if (reg === undefined || queue === undefined) return; // cannot happen: claims filter both
    let retry = reg.retry ?? this.o.retry;
    if (row.retry_policy !== null) {
      try {
        retry = resolveRetryPolicy(JSON.parse(row.retry_policy), retry, 'retry_policy');
      } catch {
        /* keep the type's policy */
      }
    }
    const run: ActiveRun = {
      row,
      reg,
      queue,
      retry,
      timeoutMs: row.timeout_ms ?? reg.timeoutMs ?? this.o.timeoutMs,
      attempt: row.attempt + 1,
      token: 0,
      phase: 'finished',
      controller: new AbortController(),
      log: new RunLog(row.id, this.o.logCapPerRun, this.o.clock, this.sql.lastLogSequence, (l) => this.logs.push(l)),
      cancelRequested: false,
      t0: 0,
      timer: undefined,
    };
    this.active.set(row.id, run);
    this.emit(buildEvent('Started', this.o.clock(), row, `Task started (attempt ${run.attempt})`, { attempt: run.attempt }));
    this.beginAttempt(run);
  }

  private beginAttempt(run: ActiveRun): void {
    const token = ++run.token;
    run.phase = 'running';
    run.queue.running++;
    run.controller = new AbortController();
    let request: unknown;
    try {
      request = JSON.parse(run.row.request);
    } catch (err) {
      run.t0 = performance.now();
      this.settle(run, token, false, new Error(`The stored request is not valid JSON: ${errorMessage(err)}`));
      return;
    }
    const ctx: TaskContext = {
      taskId: run.row.id,
      type: run.row.type,
      queue: run.row.queue,
      attempt: run.attempt,
      runNumber: run.row.run_count + 1,
      signal: run.controller.signal,
      log: run.log.logger,
      ...(run.row.task_key !== null ? { taskKey: run.row.task_key } : {}),
      ...(run.row.parent_task_id !== null ? { parentTaskId: run.row.parent_task_id } : {}),
    };
    if (run.timeoutMs !== undefined && run.timeoutMs !== null) {
      const ms = run.timeoutMs;
      run.timer = setTimeout(() => {
        if (run.token !== token || run.phase !== 'running') return;
        const err = new TaskTimeoutError(`The task timed out after ${ms} ms`);
        run.controller.abort(err);
        this.settle(run, token, false, err, true);
      }, ms);
    }
    run.t0 = performance.now();
    let result: unknown;
    try {
      result = run.reg.handler(request, ctx);
    } catch (err) {
      this.settle(run, token, false, err);
      return;
    }
    if (result !== null && typeof result === 'object' && typeof (result as PromiseLike<unknown>).then === 'function') {
      (result as PromiseLike<unknown>).then(
        () => this.settle(run, token, true, undefined),
        (err: unknown) => this.settle(run, token, false, err),
      );
    } else {
      this.settle(run, token, true, undefined);
    }
  }

  /** The attempt ended (resolved, threw, or timed out). */
  private settle(run: ActiveRun, token: number, ok: boolean, err: unknown, timedOut = false): void {
    if (run.token !== token || run.phase !== 'running') return;
    const duration = roundMs(performance.now() - run.t0);
    clearTimeout(run.timer);
    run.timer = undefined;
    run.phase = 'finished';
    run.queue.running--;
    this.scheduleFlush();
    if (run.cancelRequested) {
      this.finish(run, 'Cancelled', duration, null, false);
      return;
    }
    if (ok) {
      this.finish(run, 'Completed', duration, null, false);
      return;
    }
    const exception = errorText(err);
    if (run.attempt < run.retry.attempts) {
      const failed = run.attempt;
      const delay = backoffDelay(run.retry, failed);
      run.log.append('Warning', `Attempt ${failed} of ${run.retry.attempts} failed: ${errorMessage(err)}; retrying in ${delay} ms`);
      run.attempt++;
      run.phase = 'retryWait';
      const { id } = run.row;
      const timeoutEvent = timedOut ? this.runEvent('Timeout', run, errorMessage(err), { exception }) : undefined;
      this.ops.push({
        apply: () => {
          this.sql.recordAttemptFailure(id, failed, exception);
          return timeoutEvent ? () => this.emit(timeoutEvent()) : undefined;
        },
        fail: (e) => this.o.onError(e, 'record failed attempt'),
      });
      run.timer = setTimeout(() => {
        run.timer = undefined;
        if (run.phase !== 'retryWait') return;
        run.queue.ready.push(run);
        this.scheduleFlush();
      }, delay);
      return;
    }
    this.finish(run, 'Failed', 0, exception, timedOut, undefined, undefined, err);
  }

  /** Builds an event for a run lazily (after commit, when its log rows have ids). */
  private runEvent(
    kind: SvcEventKind,
    run: ActiveRun,
    message: string,
    extras: { exception?: string | null; executionTimeMs?: number },
  ): () => SvcEvent {
    return () =>
      buildEvent(kind, this.o.clock(), run.row, message, {
        ...extras,
        attempt: run.attempt,
        ...(kind === 'Cancelled' ? {} : { executionLogs: run.log.entries }),
      });
  }

  /** Records the end of a delivery (or of one inline recurring run) in the next group commit. */
  private finish(
    run: ActiveRun,
    outcome: 'Completed' | 'Failed' | 'Cancelled',
    executionTimeMs: number,
    exception: string | null,
    timedOut: boolean,
    onRecorded?: () => void,
    onLost?: () => void,
    err?: unknown,
  ): void {
    run.phase = 'finished';
    run.log.close();
    this.active.delete(run.row.id);
    const row = run.row;
    const now = this.o.clock();
    let nextStatus: FinishedRun['nextStatus'] = outcome;
    let nextScheduledAt: number | null = null;
    const recurring = row.is_recurring === 1;
    if (recurring && outcome !== 'Cancelled' && row.recurrence !== null) {
      try {
        const r = JSON.parse(row.recurrence) as Recurrence;
        const runs = row.run_count + 1;
        nextScheduledAt = r.maxRuns !== undefined && runs >= r.maxRuns ? null : nextDue(r, now, row.scheduled_at ?? undefined);
      } catch (e) {
        this.o.onError(e, `recurrence of task ${row.id}`);
        nextScheduledAt = null;
      }
      nextStatus = nextScheduledAt === null ? 'Completed' : 'Pending';
    }
    const fr: FinishedRun = {
      id: row.id,
      auditLevel: row.audit_level,
      endedAt: now,
      executionTimeMs,
      outcome,
      exception,
      nextStatus,
      nextScheduledAt,
      recurring,
    };
    const events: (() => SvcEvent)[] = [];
    if (timedOut) events.push(this.runEvent('Timeout', run, errorMessage(err), { exception }));
    if (outcome === 'Completed') {
      events.push(this.runEvent('Completed', run, `Task completed in ${executionTimeMs} ms`, { executionTimeMs }));
    } else if (outcome === 'Failed') {
      events.push(this.runEvent('Failed', run, `Task failed: ${errorMessage(err)}`, { exception, executionTimeMs: 0 }));
    } else {
      events.push(this.runEvent('Cancelled', run, 'Task cancelled', {}));
    }
    this.finishes.push({
      run: fr,
      after: () => {
        if (nextScheduledAt !== null) this.dueHint = Math.min(this.dueHint, nextScheduledAt);
        for (const e of events) this.emit(e());
        onRecorded?.();
      },
      lost: onLost,
    });
    this.scheduleFlush();
  }
}

/** Creates an engine over an open storage (DESIGN §4.1). Bad options throw an Error naming the option. */
export function createEngine(options: EngineOptions): Engine {
  return new TaskEngine(options);
}
