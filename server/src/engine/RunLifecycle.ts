import { performance } from 'node:perf_hooks';
import type { SvcEvent } from '../contracts/index.js';
import type { ClaimDecider, FinishedRun, RunnableTaskRow } from '../storage/EngineStore.js';
import type { GroupCommit } from './GroupCommit.js';
import type { Registration } from './handlerRegistration.js';
import { AttemptSignal } from './AttemptSignal.js';
import { RateLimiter } from './RateLimiter.js';
import { nextDue, type Recurrence } from './Recurrence.js';
import type { QueueConfig, ResolvedEngineOptions } from './resolveEngineOptions.js';
import { backoffDelay, resolveRetryPolicy, type RetryPolicy } from './RetryPolicy.js';
import { RunLog } from './RunLog.js';
import { runEvent, startedEvent } from './runEvents.js';
import { ServiceStoppingError, TaskCancelledError, TaskTimeoutError } from './runErrors.js';
import { startRunSpan, type RunSpan } from './tracing.js';
import type { CancelResult, TaskContext } from './types.js';
import { errorMessage, errorText } from './validation.js';

export interface QueueState extends QueueConfig {
  /** Handlers running now. */
  running: number;
  /**
   * Runs waiting for a free worker, oldest first: rows claimed ahead, and runs whose retry backoff
   * is over. Their rows are InProgress already (claimed by this engine).
   */
  ready: ActiveRun[];
  /** Running average of the queue's attempt durations (ms); null until one attempt ended. */
  avgAttemptMs: number | null;
}

/** A row this engine has claimed, from its start to its recorded end. */
export interface ActiveRun {
  row: RunnableTaskRow;
  reg: Registration;
  queue: QueueState;
  retry: RetryPolicy;
  timeoutMs: number | undefined;
  /** Attempt number of the current (or next) attempt, 1-based. */
  attempt: number;
  token: number;
  phase: 'claimed' | 'running' | 'retryWait' | 'finished';
  controller: AttemptSignal;
  log: RunLog;
  cancelRequested: boolean;
  t0: number;
  timer: NodeJS.Timeout | undefined;
  /** The current attempt's trace span (with a tracer provider only). */
  span?: RunSpan;
}

/** How a delivery ended, as handed to `finish`. */
export interface RunEnd {
  run: ActiveRun;
  outcome: 'Completed' | 'Failed' | 'Cancelled';
  executionTimeMs: number;
  exception: string | null;
  timedOut: boolean;
  /** The error of a failed or timed-out run (event message). */
  error?: unknown;
  /** After the end is written. */
  onRecorded?: () => void;
  /** The row was no longer InProgress: nothing was written. */
  onLost?: () => void;
}

export interface RunLifecycleDeps {
  options: ResolvedEngineOptions;
  registry: ReadonlyMap<string, Registration>;
  commit: GroupCommit;
  emit(event: SvcEvent): void;
  /** A worker is free or a run is ready: the next group commit should claim. */
  workerFree(): void;
  /** The next run of an inline recurring row is due at `at`. */
  noteDue(at: number): void;
}

const roundMs = (ms: number) => Math.round(ms * 1000) / 1000;

/** The controller of a run before its first attempt: never aborted (each attempt gets its own). */
const NOT_STARTED = new AttemptSignal();

/**
 * Claim-ahead: a queue whose handlers are short claims more rows than it has free workers, so one
 * commit claims (and the next one finishes) many rows instead of a handful. A row claimed ahead is
 * InProgress (its audit time and started_at are the claim) and waits in memory only as long as the
 * runs before it take: rows are claimed ahead only up to what the queue's recent attempt durations
 * say it runs within CLAIM_AHEAD_BUDGET_MS, and never more than MAX_CLAIM_AHEAD × concurrency in all.
 * A queue whose handlers take longer (or that has not finished an attempt yet) claims only for its
 * free workers.
 */
export const CLAIM_AHEAD_BUDGET_MS = 2;
export const MAX_CLAIM_AHEAD = 16;
/** Weight of the newest attempt in the running average of attempt durations. */
const AVG_WEIGHT = 0.1;
/** An attempt counts as at most this long in the average (twice the budget: enough to end claim-ahead). */
const MAX_SAMPLE_MS = 2 * CLAIM_AHEAD_BUDGET_MS;

/** How many times its concurrency a queue may hold (running plus claimed ahead). */
export function claimAheadFactor(avgAttemptMs: number | null): number {
  if (avgAttemptMs === null) return 1;
  if (avgAttemptMs <= 0) return MAX_CLAIM_AHEAD;
  return Math.max(1, Math.min(MAX_CLAIM_AHEAD, 1 + Math.floor(CLAIM_AHEAD_BUDGET_MS / avgAttemptMs)));
}

/**
 * The run state machine: claimed row → attempt (handler running) → retry wait → attempt … →
 * finished (Completed, Failed, Cancelled, or Pending again for an inline recurring row). Each
 * end is handed to the group commit; its events are emitted once it is written.
 */
export class RunLifecycle {
  readonly queues = new Map<string, QueueState>();
  private readonly active = new Map<string, ActiveRun>();
  private readonly limiter = new RateLimiter();
  private pumping = false;

  constructor(private readonly d: RunLifecycleDeps) {
    for (const q of d.options.queues.values()) this.queues.set(q.name, { ...q, running: 0, ready: [], avgAttemptMs: null });
  }

  /** Room per queue (what the next commit may claim): running and waiting runs up to its claim-ahead factor × concurrency. */
  claims(): { queue: string; limit: number }[] {
    const out: { queue: string; limit: number }[] = [];
    for (const q of this.queues.values()) {
      const free = q.concurrency * claimAheadFactor(q.avgAttemptMs) - q.running - q.ready.length;
      if (free > 0) out.push({ queue: q.name, limit: free });
    }
    return out;
  }

  /** Rate limits: run the candidate now, or leave it throttled until the returned instant. */
  readonly decide: ClaimDecider = (row) => {
    const limit = this.d.registry.get(row.type)?.rateLimit;
    if (limit === undefined) return true;
    const key = row.rate_limit_key === null ? row.type : `${row.type}\u0000${row.rate_limit_key}`;
    return this.limiter.take(key, limit, this.d.options.clock());
  };

  countRunning(): number {
    let n = 0;
    for (const r of this.active.values()) if (r.phase === 'running') n++;
    return n;
  }

  /**
   * Starts waiting runs (claimed ahead, or retries whose backoff is over) while their queue has a
   * free worker. A handler that settles at once frees its worker inside this loop: the loop goes
   * on (a nested call returns at once) instead of recursing.
   */
  pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    try {
      let progress = true;
      while (progress) {
        progress = false;
        for (const q of this.queues.values()) {
          while (q.ready.length > 0 && q.running < q.concurrency) {
            const run = q.ready.shift()!;
            if (run.phase === 'retryWait' || run.phase === 'claimed') {
              this.beginAttempt(run);
              progress = true;
            }
          }
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /** A row this engine claimed (now InProgress): its first attempt starts. */
  start(row: RunnableTaskRow): void {
    const o = this.d.options;
    const reg = this.d.registry.get(row.type);
    const queue = this.queues.get(row.queue);
    if (reg === undefined || queue === undefined) return; // cannot happen: claims filter both
    let retry = reg.retry ?? o.retry;
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
      timeoutMs: row.timeout_ms ?? reg.timeoutMs ?? o.timeoutMs,
      attempt: row.attempt + 1,
      token: 0,
      phase: 'claimed',
      controller: NOT_STARTED,
      log: new RunLog(row.id, o.logCapPerRun, o.clock, row.last_log_sequence, (l) => this.d.commit.log(l)),
      cancelRequested: false,
      t0: 0,
      timer: undefined,
    };
    this.active.set(row.id, run);
    queue.ready.push(run);
  }

  /**
   * engine.cancel of a row running here: undefined when it is not active in this engine.
   * A running handler is aborted (the row becomes Cancelled when it settles); a run waiting for
   * its retry is cancelled at once.
   */
  cancel(id: string): Promise<CancelResult> | undefined {
    const run = this.active.get(id);
    if (run === undefined) return undefined;
    if (run.phase === 'running') {
      if (!run.cancelRequested) {
        run.cancelRequested = true;
        run.controller.abort(new TaskCancelledError('The task was cancelled'));
      }
      return Promise.resolve('Cancelling');
    }
    if (run.phase === 'retryWait' || run.phase === 'claimed') {
      this.leaveRetryWait(run);
      return new Promise<CancelResult>((resolve) => {
        this.finish({
          run, outcome: 'Cancelled', executionTimeMs: 0, exception: null, timedOut: false,
          onRecorded: () => resolve('Cancelled'), onLost: () => resolve('NotCancellable'),
        });
      });
    }
    return undefined;
  }

  /** Engine stops: runs waiting for a worker or a retry are given up now. */
  abandonWaiting(): void {
    for (const run of [...this.active.values()]) if (run.phase === 'retryWait' || run.phase === 'claimed') this.abandon(run);
  }

  /** Engine stops after the grace period: every remaining run is given up. */
  abandonAll(): void {
    for (const run of [...this.active.values()]) this.abandon(run);
  }

  /** The run is given up; its row becomes ServiceStopped; a late outcome is ignored. */
  private abandon(run: ActiveRun): void {
    if (run.phase === 'running') {
      run.queue.running--;
      run.controller.abort(new ServiceStoppingError('The engine is stopping'));
      run.span?.end(new ServiceStoppingError('The engine is stopping'));
      run.span = undefined;
    }
    this.leaveRetryWait(run);
    run.log.close();
    this.active.delete(run.row.id);
    this.d.commit.serviceStopped({ id: run.row.id, auditLevel: run.row.audit_level });
  }

  private leaveRetryWait(run: ActiveRun): void {
    clearTimeout(run.timer);
    run.timer = undefined;
    const i = run.queue.ready.indexOf(run);
    if (i >= 0) run.queue.ready.splice(i, 1);
    run.phase = 'finished';
  }

  private beginAttempt(run: ActiveRun): void {
    const token = ++run.token;
    run.phase = 'running';
    run.queue.running++;
    run.controller = new AttemptSignal();
    const attemptSignal = run.controller;
    run.span = startRunSpan(run.row, run.attempt);
    if (token === 1) this.d.emit(startedEvent(this.d.options.clock(), run));
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
      attempt: run.attempt + run.row.abandoned_count,
      runNumber: run.row.run_count + 1,
      get signal() {
        return attemptSignal.signal;
      },
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
      result = run.span ? run.span.within(() => run.reg.handler(request, ctx)) : run.reg.handler(request, ctx);
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
    run.span?.end(ok ? undefined : err);
    run.span = undefined;
    const elapsed = performance.now() - run.t0;
    const duration = roundMs(elapsed);
    const q = run.queue;
    // One long pause (a GC, the process descheduled) moves the average by a bounded step only.
    const sample = Math.min(elapsed, MAX_SAMPLE_MS);
    q.avgAttemptMs = q.avgAttemptMs === null ? sample : q.avgAttemptMs + AVG_WEIGHT * (sample - q.avgAttemptMs);
    clearTimeout(run.timer);
    run.timer = undefined;
    run.phase = 'finished';
    run.queue.running--;
    this.d.workerFree();
    this.pump();
    if (run.cancelRequested) {
      this.finish({ run, outcome: 'Cancelled', executionTimeMs: duration, exception: null, timedOut: false });
      return;
    }
    if (ok) {
      this.finish({ run, outcome: 'Completed', executionTimeMs: duration, exception: null, timedOut: false });
      return;
    }
    const exception = errorText(err);
    if (run.attempt < run.retry.attempts) {
      const failed = run.attempt;
      const delay = backoffDelay(run.retry, failed);
      run.log.append('Warning', `Attempt ${failed} of ${run.retry.attempts} failed: ${errorMessage(err)}; retrying in ${delay} ms`);
      run.attempt++;
      run.phase = 'retryWait';
      const timeoutEvent = timedOut ? runEvent('Timeout', run, this.d.options.clock, errorMessage(err), { exception }) : undefined;
      this.d.commit.attemptFailed(
        { id: run.row.id, attempt: failed, exception },
        timeoutEvent ? () => this.d.emit(timeoutEvent()) : undefined,
      );
      run.timer = setTimeout(() => {
        run.timer = undefined;
        if (run.phase !== 'retryWait') return;
        run.queue.ready.push(run);
        this.pump();
      }, delay);
      return;
    }
    this.finish({ run, outcome: 'Failed', executionTimeMs: 0, exception, timedOut, error: err });
  }

  /** Records the end of a delivery (or of one inline recurring run) in the next group commit. */
  private finish(end: RunEnd): void {
    const { run, outcome, executionTimeMs, exception } = end;
    const clock = this.d.options.clock;
    run.phase = 'finished';
    run.log.close();
    this.active.delete(run.row.id);
    const row = run.row;
    const now = clock();
    let nextStatus: FinishedRun['nextStatus'] = outcome;
    let nextScheduledAt: number | null = null;
    const recurring = row.is_recurring === 1;
    if (recurring && outcome !== 'Cancelled' && row.recurrence !== null) {
      try {
        const r = JSON.parse(row.recurrence) as Recurrence;
        const runs = row.run_count + 1;
        nextScheduledAt = r.maxRuns !== undefined && runs >= r.maxRuns ? null : nextDue(r, now, row.scheduled_at ?? undefined);
      } catch (e) {
        this.d.options.onError(e, `recurrence of task ${row.id}`);
        nextScheduledAt = null;
      }
      nextStatus = nextScheduledAt === null ? 'Completed' : 'Pending';
    }
    const events: (() => SvcEvent)[] = [];
    if (end.timedOut) events.push(runEvent('Timeout', run, clock, errorMessage(end.error), { exception }));
    if (outcome === 'Completed') {
      events.push(runEvent('Completed', run, clock, `Task completed in ${executionTimeMs} ms`, { executionTimeMs }));
    } else if (outcome === 'Failed') {
      events.push(runEvent('Failed', run, clock, `Task failed: ${errorMessage(end.error)}`, { exception, executionTimeMs: 0 }));
    } else {
      events.push(runEvent('Cancelled', run, clock, 'Task cancelled', {}));
    }
    this.d.commit.finish({
      run: {
        id: row.id, auditLevel: row.audit_level, endedAt: now, executionTimeMs, outcome, exception, nextStatus, nextScheduledAt, recurring,
      },
      after: () => {
        if (nextScheduledAt !== null) this.d.noteDue(nextScheduledAt);
        for (const e of events) this.d.emit(e());
        end.onRecorded?.();
      },
      lost: end.onLost,
    });
  }
}
