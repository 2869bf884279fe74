import type { AttemptNotice, StoppedRunNotice, SvcEvent, TaskEndNotice } from '../contracts/index.js';
import type { DispatchStep, EngineStore, NewTask, RateLimitSpec, RunnableTaskRow } from '../storage/EngineStore.js';
import type { SqliteStorage } from '../storage/Storage.js';
import { buildEvent } from './buildEvent.js';
import type { EngineInternals } from './EngineInternals.js';
import { GroupCommit } from './GroupCommit.js';
import { resolveRegistration, type Registration } from './handlerRegistration.js';
import { planDispatch, planRecurring, type DispatchPlan, type PlanningContext } from './planTask.js';
import { resolveEngineOptions, type ResolvedEngineOptions } from './resolveEngineOptions.js';
import { createTaskOperations, type TaskOperations } from './operations/TaskOperations.js';
import { reservationHoldMs, RunLifecycle } from './RunLifecycle.js';
import { createScheduleManager } from './schedules/index.js';
import type { ScheduleManager } from './schedules/ScheduleManager.js';
import { Tickers } from './Tickers.js';
import type {
  CancelResult, DispatchOptions, Engine, EngineErrorListener, EngineEventListener, EngineHealth, EngineOptions, HandleOptions,
  RecurringOptions, StopOptions, TaskHandler,
} from './types.js';
import { assertKnownKeys, assertPlainObject, checkInt, errorMessage } from './validation.js';
import { loadedTracing, loadTracing, providerRegistered, startCallerDispatchSpan } from './tracing.js';
import { WakeTimer } from './WakeTimer.js';

/** How long stop() keeps trying to write what is queued when the store is unavailable (when not given). */
const STOP_WRITE_TIMEOUT_MS = 5000;
/** Unwritten changes older than this make the engine report itself degraded. */
const DEGRADED_AFTER_MS = 5000;
/** A host clock further than this from the store's shared clock is reported as not ok (health.clock). */
const CLOCK_OFFSET_OK_MS = 1000;

/**
 * The background-task engine: a facade over its parts. The group commit writes every change
 * (one store transaction at a time), the run lifecycle runs claimed rows through their
 * attempts, the wake timer decides when to look at the store on its own, the tickers run the
 * schedule materializer. The engine talks to storage only through its EngineStore.
 */
export class TaskEngine implements Engine {
  readonly storage: SqliteStorage | undefined;
  readonly store: EngineStore;
  readonly schedules: ScheduleManager;
  /** Retry and bulk actions (management). */
  readonly tasks: TaskOperations;
  readonly queueNames: readonly string[];

  private readonly o: ResolvedEngineOptions;
  private readonly registry = new Map<string, Registration>();
  private types: readonly string[] = [];
  /** Rate limit per registered type that has one. */
  private rateLimits: ReadonlyMap<string, RateLimitSpec> = new Map();
  private readonly listeners = new Set<EngineEventListener>();
  private readonly errorListeners = new Set<EngineErrorListener>();
  private readonly commitListeners = new Set<(seconds: number) => void>();
  private readonly stoppedRunListeners = new Set<(run: StoppedRunNotice) => void>();
  private readonly attemptListeners = new Set<(attempt: AttemptNotice) => void>();
  private readonly taskEndListeners = new Set<(end: TaskEndNotice) => void>();
  /** Why the store cannot be written at all (its file deleted or replaced); null while it can. */
  private storeLost: Error | null = null;
  private locationTimer: NodeJS.Timeout | undefined;
  private checkingLocation = false;
  private readonly planning: PlanningContext;
  private readonly commit: GroupCommit;
  private readonly runs: RunLifecycle;
  private readonly wakeTimer: WakeTimer;
  private readonly tickers: Tickers;

  private running = false;
  /** start() in progress (recovery runs before the engine counts as running and claims). */
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  /** Unsubscribes from the store's notices of work added by other processes (while running). */
  private stopExternalWork: (() => void) | undefined;
  /** Unsubscribes from the store's notices of reserved rows cancelled by other processes. */
  private stopReservationNotices: (() => void) | undefined;
  /** Kept for the engine's life (a stopping engine's handlers still run): what it does on a lapse of its lease. */
  private stopLeaseNotices: (() => void) | undefined;
  private leaseWasLapsed = false;
  /** Run writes the store refused (the row no longer the run's); see EngineHealth. */
  private staleRunWrites = 0;

  constructor(options: EngineOptions) {
    this.o = resolveEngineOptions(options);
    this.storage = this.o.storage;
    this.store = this.o.store;
    const capacities = new Map<string, number>();
    for (const q of this.o.queues.values()) if (q.capacity !== Infinity) capacities.set(q.name, q.capacity);
    this.wakeTimer = new WakeTimer(this.store, this.o.clock, this.o.pollIntervalMs, () => this.commit.schedule(), this.o.onError);
    this.commit = new GroupCommit(this.store, capacities, this.o.clock, {
      dispatchStep: (now) => this.dispatchStep(now),
      noteDue: (at) => this.wakeTimer.noteDue(at),
      promoted: (count, limit) => {
        if (this.wakeTimer.promoted(count, limit)) this.commit.schedule();
      },
      claimed: (rows: RunnableTaskRow[], checkFirst: boolean) => {
        this.runs.claimed(rows, checkFirst);
      },
      staleRunWrite: (kind, taskId) => {
        this.staleRunWrites++;
        this.o.onError(new Error(`The ${kind} of a run of task ${taskId} was not written: the row no longer belongs to that run`), 'stale run write (dropped)');
      },
      idle: () => {
        if (this.running && this.stopping === undefined) this.wakeTimer.arm();
      },
      writeState: (err) => {
        if (err === null || err === this.storeLost) return;
        this.o.onError(err, 'store unavailable; changes are kept in memory and retried');
        this.emitError(err);
      },
      onError: this.o.onError,
      committed: (seconds) => {
        for (const l of this.commitListeners) l(seconds);
      },
    }, { maxUnwrittenTasks: this.o.maxUnwrittenTasks, whenFull: this.o.onUnwrittenFull });
    this.runs = new RunLifecycle({
      options: this.o,
      registry: this.registry,
      commit: this.commit,
      emit: (e) => this.emit(e),
      stoppedRun: (run) => this.notify(this.stoppedRunListeners, run, 'stopped-run listener'),
      observed: { attempts: this.attemptListeners, taskEnds: this.taskEndListeners },
      attemptEnded: (attempt) => this.notify(this.attemptListeners, attempt, 'attempt listener'),
      taskEnded: (end) => this.notify(this.taskEndListeners, end, 'task-end listener'),
      workerFree: () => this.commit.schedule(),
      noteDue: (at) => this.wakeTimer.noteDue(at),
      ...(this.store.confirmRuns !== undefined ? { confirmRuns: this.store.confirmRuns.bind(this.store) } : {}),
      retryLost: (taskId) => {
        this.staleRunWrites++;
        this.o.onError(new Error(`The retry of a run of task ${taskId} was not begun: the row no longer belongs to that run`), 'stale run (retry dropped)');
      },
      ...(this.store.forgetReservation !== undefined ? { forgetReservation: this.store.forgetReservation.bind(this.store) } : {}),
      ...(this.store.rowsTakenAway !== undefined ? { rowsTakenAway: this.store.rowsTakenAway.bind(this.store) } : {}),
      sharedRateWindows: () => this.store.sharedRateWindows === true,
      ...(this.store.lease !== undefined ? { leaseHeld: () => this.store.lease?.().expired !== true } : {}),
    });
    this.queueNames = [...this.runs.queues.keys()];
    this.tickers = new Tickers(this.o.clock, this.o.onError, () => this.wake());
    this.planning = {
      handlerOf: (type) => this.registry.get(type),
      hasQueue: (name) => this.runs.queues.has(name),
      defaultRetry: this.o.retry,
      defaultAuditLevel: this.o.auditLevel,
      now: () => this.o.clock(),
    };
    const internals: EngineInternals = {
      store: this.store,
      now: () => this.o.clock(),
      emit: (e) => this.emit(e),
      wake: () => this.wake(),
      addTicker: (name, tick, intervalMs) => this.tickers.add(name, tick, intervalMs),
      reportError: (err, where) => this.o.onError(err, where),
      defaultAuditLevel: this.o.auditLevel,
      handlerNameOf: (type) => this.registry.get(type)?.handlerName,
      resolveQueue: (queue) => (queue !== undefined && this.runs.queues.has(queue) ? queue : 'default'),
      isRunning: () => this.running,
    };
    this.schedules = createScheduleManager(internals);
    this.tasks = createTaskOperations({
      store: this.store.management,
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
    this.types = [...this.registry.keys()];
    this.rateLimits = new Map([...this.registry.values()].flatMap((r) => (r.rateLimit === undefined ? [] : [[r.type, r.rateLimit] as const])));
    if (this.running) this.wake();
    return this;
  }

  on(event: 'event', listener: EngineEventListener): Engine;
  on(event: 'error', listener: EngineErrorListener): Engine;
  on(event: 'event' | 'error', listener: EngineEventListener | EngineErrorListener): Engine {
    if (event !== 'event' && event !== 'error') throw new TypeError(`on: unknown event "${String(event)}" ('event' or 'error')`);
    if (typeof listener !== 'function') throw new TypeError('on: listener must be a function');
    if (event === 'event') this.listeners.add(listener as EngineEventListener);
    else this.errorListeners.add(listener as EngineErrorListener);
    return this;
  }

  off(event: 'event', listener: EngineEventListener): Engine;
  off(event: 'error', listener: EngineErrorListener): Engine;
  off(event: 'event' | 'error', listener: EngineEventListener | EngineErrorListener): Engine {
    if (event === 'event') this.listeners.delete(listener as EngineEventListener);
    else if (event === 'error') this.errorListeners.delete(listener as EngineErrorListener);
    return this;
  }

  observeCommits(listener: (seconds: number) => void): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  observeStoppedRuns(listener: (run: StoppedRunNotice) => void): () => void {
    this.stoppedRunListeners.add(listener);
    return () => this.stoppedRunListeners.delete(listener);
  }

  observeAttempts(listener: (attempt: AttemptNotice) => void): () => void {
    this.attemptListeners.add(listener);
    return () => this.attemptListeners.delete(listener);
  }

  observeTaskEnds(listener: (end: TaskEndNotice) => void): () => void {
    this.taskEndListeners.add(listener);
    return () => this.taskEndListeners.delete(listener);
  }

  /** Hands a notice to its observers; one that throws is reported and does not stop the others. */
  private notify<N>(listeners: ReadonlySet<(notice: N) => void>, notice: N, where: string): void {
    for (const l of listeners) {
      try {
        l(notice);
      } catch (err) {
        this.o.onError(err, where);
      }
    }
  }

  health(): EngineHealth {
    const now = this.o.clock();
    const offsetMs = this.store.clockOffsetMs?.();
    const base = {
      unwrittenChanges: this.commit.unwritten, oldestUnwrittenMs: this.commit.oldestUnwrittenMs(now), staleRunWrites: this.staleRunWrites,
      ...(offsetMs === undefined ? {} : { clock: { offsetMs, ok: Math.abs(offsetMs) <= CLOCK_OFFSET_OK_MS } }),
    };
    if (this.storeLost !== null) return { status: 'failed', reason: this.storeLost.message, ...base };
    const failing = this.commit.failing;
    if (failing !== null) return { status: 'degraded', reason: `Writes are failing: ${errorMessage(failing)}`, ...base };
    const lease = this.store.lease?.();
    if (lease !== undefined && lease.failing !== null) {
      const consequence = lease.expired ? 'the lease has lapsed: no new runs start until one is written' : 'the lease holds for now';
      return { status: 'degraded', reason: `The heartbeat cannot be written (${consequence}): ${errorMessage(lease.failing)}`, ...base };
    }
    if (base.oldestUnwrittenMs > DEGRADED_AFTER_MS) {
      return { status: 'degraded', reason: `Changes wait ${base.oldestUnwrittenMs} ms to be written`, ...base };
    }
    return { status: 'ok', ...base };
  }

  private emitError(err: unknown): void {
    const e = err instanceof Error ? err : new Error(String(err));
    for (const l of this.errorListeners) {
      try {
        l(e);
      } catch (listenerErr) {
        this.o.onError(listenerErr, 'error listener');
      }
    }
  }

  /**
   * Once per poll interval: is the store still the one opened? A deleted or replaced database
   * file stops claims and writes (changes stay in memory), reported once as an error.
   */
  private checkLocation(): void {
    if (this.checkingLocation) return;
    this.checkingLocation = true;
    this.store.checkLocation().then(
      (check) => {
        this.checkingLocation = false;
        if (!check.ok && this.storeLost === null) {
          this.storeLost = new Error(check.reason);
          this.commit.block(this.storeLost);
          this.o.onError(this.storeLost, 'store location');
          this.emitError(this.storeLost);
        } else if (check.ok && this.storeLost !== null) {
          this.storeLost = null;
          this.commit.unblock();
        }
      },
      (err: unknown) => {
        this.checkingLocation = false;
        this.o.onError(err, 'store location check');
      },
    );
  }

  isRunning(): boolean {
    return this.running;
  }

  private emit(event: SvcEvent): void {
    // A row reserved here and cancelled by this process (bulk or schedule cancel) never begins.
    if (event.kind === 'Cancelled') this.runs.forgetReserved(event.taskId);
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        this.o.onError(err, `event listener (${event.kind})`);
      }
    }
  }

  // ---------------------------------------------------------------- dispatch and cancel

  async dispatch(type: string, request?: unknown, options: DispatchOptions = {}): Promise<string> {
    const plan = planDispatch(this.planning, type, request, options);
    // Once loaded, the API is taken at once: a dispatch awaits only its insert.
    const otel = providerRegistered() ? (loadedTracing() ?? await loadTracing()) : undefined;
    const span = otel ? startCallerDispatchSpan(otel, plan) : undefined;
    if (!span) return (await this.commit.insert(newTask(plan, false))).id;
    try {
      const { id } = await this.commit.insert({ ...newTask(plan, false), traceparent: span.traceparent, tracestate: span.tracestate });
      span.end();
      return id;
    } catch (err) {
      span.end(err);
      throw err;
    }
  }

  async recurring(type: string, request?: unknown, options: RecurringOptions = {}): Promise<string> {
    const plan = planRecurring(this.planning, type, request, options);
    return (await this.commit.insert(newTask(plan, true))).id;
  }

  async cancel(id: string): Promise<CancelResult> {
    if (typeof id !== 'string' || id.length === 0) throw new TypeError('cancel: id must be a task id (GUID string)');
    const here = this.runs.cancel(id);
    if (here !== undefined) return here;
    const r = await this.commit.cancel(id);
    if (r.result !== 'Cancelled') return r.result;
    this.emit(buildEvent('Cancelled', this.o.clock(), r.task, 'Task cancelled'));
    return 'Cancelled';
  }

  // ---------------------------------------------------------------- start / stop

  async start(): Promise<void> {
    if (this.stopping) await this.stopping;
    if (this.running) return;
    if (this.starting) return this.starting;
    this.starting = this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /**
   * Recovery first, then running: no claim (which a dispatch meanwhile would start) comes before
   * the recovery of this store's earlier runs, which could otherwise take a run just begun here for
   * an abandoned one.
   */
  private async doStart(): Promise<void> {
    if (this.storage?.closed) throw new Error('start: the storage is closed');
    // Runs never wait for the tracing API: it is loaded before the first claim when a provider exists.
    await loadTracing();
    const unlimitedQueues = [...this.runs.queues.values()].filter((q) => q.capacity === Infinity).map((q) => q.name);
    try {
      await this.store.recover({
        now: this.o.clock(),
        unlimitedQueues,
        maxAbandoned: this.o.maxAbandoned,
        onAbandoned: (failed) => {
          for (const t of failed) this.emit(buildEvent('Failed', t.failedAt, t, `Task failed: ${t.exception}`, { exception: t.exception, executionTimeMs: 0, abandoned: true }));
        },
      });
    } catch (err) {
      this.o.onError(err, 'recovery');
    }
    this.running = true;
    this.wakeTimer.lookNow();
    this.commit.schedule();
    this.stopExternalWork ??= this.store.onExternalWork?.(() => {
      if (this.running && this.stopping === undefined) this.wake();
    });
    this.stopReservationNotices ??= this.store.onReservationLost?.((taskId) => this.runs.forgetReserved(taskId));
    this.stopLeaseNotices ??= this.store.onLeaseLost?.((lapse) => {
      this.o.onError(new Error(`The lease lapsed (no heartbeat written for ${Math.round(lapse.sinceRenewalMs)} ms): runs not yet begun here are given up`), 'lease');
      const unwritten = this.commit.runsUnwritten();
      return [...this.runs.leaseLapsed(new Set(unwritten)), ...unwritten];
    });
    this.tickers.start();
    clearInterval(this.locationTimer);
    this.locationTimer = setInterval(() => this.checkLocation(), this.o.pollIntervalMs);
  }

  async stop(options: StopOptions = {}): Promise<void> {
    assertPlainObject(options, 'stop: options');
    assertKnownKeys(options, new Set(['graceMs', 'writeTimeoutMs']), 'stop');
    const graceMs = checkInt(options.graceMs, 'stop: option "graceMs"', 0) ?? this.o.stopGraceMs;
    const writeTimeoutMs = checkInt(options.writeTimeoutMs, 'stop: option "writeTimeoutMs"', 0) ?? STOP_WRITE_TIMEOUT_MS;
    if (this.stopping) return this.stopping;
    if (this.starting) await this.starting.catch(() => undefined);
    if (this.stopping) return this.stopping;
    if (!this.running) return;
    this.stopping = this.doStop(graceMs, writeTimeoutMs).finally(() => {
      this.stopping = undefined;
    });
    return this.stopping;
  }

  private async doStop(graceMs: number, writeTimeoutMs: number): Promise<void> {
    clearInterval(this.locationTimer);
    this.locationTimer = undefined;
    this.stopExternalWork?.();
    this.stopExternalWork = undefined;
    this.stopReservationNotices?.();
    this.stopReservationNotices = undefined;
    this.wakeTimer.cancel();
    await this.tickers.stop();
    // A commit in flight may still hand over claimed rows: they start, then stop like the others.
    await this.commit.settled();
    this.runs.abandonWaiting();
    const deadline = Date.now() + graceMs;
    while (this.runs.countRunning() > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, Math.min(5, Math.max(1, deadline - Date.now()))));
    }
    this.runs.abandonAll();
    // Handlers that ignored their abort may run on: a shared store holds their rows until they settle.
    this.store.handlersOutliveStop?.(this.runs.handlersSettled());
    await this.commit.drain(writeTimeoutMs);
    this.running = false;
    this.wakeTimer.cancel();
  }

  // ---------------------------------------------------------------- the dispatcher

  private wake(): void {
    this.wakeTimer.lookNow();
    this.commit.schedule();
  }

  /** Before each commit: promote and claim only while running (and not stopping). */
  private dispatchStep(now: number): DispatchStep | null {
    this.wakeTimer.cancel();
    if (!this.running || this.stopping !== undefined || this.storage?.closed || this.storeLost !== null) return null;
    const rateLimited = this.rateLimits.size > 0;
    // Past its lease other instances may recover this one's runs: it starts none until a heartbeat is written.
    const leaseLapsed = this.store.lease?.().expired === true;
    // Renewed again: the runs that waited for it begin (the pump waits while the lease lapsed).
    if (this.leaseWasLapsed && !leaseLapsed) setImmediate(() => this.runs.pump());
    this.leaseWasLapsed = leaseLapsed;
    return {
      promoteLimit: this.wakeTimer.promoteLimit(now),
      claims: this.types.length === 0 || leaseLapsed ? [] : this.runs.claims(),
      reservationMs: reservationHoldMs(this.o.reservationBudgetMs),
      types: this.types,
      decide: rateLimited ? this.runs.decide : null,
      ...(rateLimited ? { rateLimits: this.rateLimits } : {}),
    };
  }
}

function newTask(p: DispatchPlan, recurring: boolean): NewTask {
  return {
    id: p.id,
    type: p.type,
    handler: p.handler,
    request: p.request,
    queue: p.queue,
    taskKey: p.taskKey,
    auditLevel: p.auditLevel,
    createdAt: p.createdAt,
    scheduledAt: p.scheduledAt,
    dueAt: p.dueAt,
    retryPolicy: p.retryPolicy,
    timeoutMs: p.timeoutMs,
    rateLimitKey: p.rateLimitKey,
    isRecurring: recurring,
    recurrence: p.recurrence === null ? null : JSON.stringify(p.recurrence),
  };
}

/** Creates an engine over an open storage or an EngineStore. Bad options throw an Error naming the option. */
export function createEngine(options: EngineOptions): Engine {
  return new TaskEngine(options);
}
