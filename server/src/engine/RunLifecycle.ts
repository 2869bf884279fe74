import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { AttemptNotice, AttemptResult, StoppedRunNotice, SvcEvent, TaskEndNotice } from '../contracts/index.js';
import type { ClaimDecider, FinishedRun, RunCheck, RunCheckAnswer, RunnableTaskRow, StartedRun } from '../storage/EngineStore.js';
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
import { startRunSpan, type RunSpan, type TraceOrigin } from './tracing.js';
import type { CancelResult, TaskContext } from './types.js';
import { errorMessage, errorText } from './validation.js';

export interface QueueState extends QueueConfig {
  /** Handlers running now. */
  running: number;
  /**
   * Runs waiting for a free worker, oldest first: rows reserved for this engine (still Queued in
   * the store), and runs whose retry backoff is over (InProgress).
   */
  ready: ActiveRun[];
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
  /** Counts this run's attempts (a late settle of an earlier attempt is ignored). */
  token: number;
  /** Names the run in the store (written at its start, named by every later write); set when its handler first begins. */
  runToken: string;
  /** When the claim reserved the row (store value, engine clock) and when that was here (performance.now()). */
  reservedAt: number;
  reservedSince: number;
  /**
   * reserved: waiting (Queued in the store) for a free worker; running: a handler attempt;
   * retryWait: between attempts; finished: its end handed to the commit.
   */
  phase: 'reserved' | 'running' | 'retryWait' | 'finished';
  /** The store refused the run's start (the row was cancelled or taken elsewhere): nothing more of it is written. */
  fenced: boolean;
  /**
   * Its claim was answered in this turn of the event loop (a read would learn nothing newer): its
   * first attempt may begin without asking the store (see RunLifecycle.claimed).
   */
  fresh: boolean;
  /** A worker is held for it while the store is asked whether it is still this engine's (confirmRuns). */
  checking: boolean;
  /**
   * Its start is committed (the row InProgress under its token). A retry waits for it: until then
   * the row is only reserved, and a reservation that lapses may be taken by another instance.
   */
  startWritten: boolean;
  controller: AttemptSignal;
  log: RunLog;
  cancelRequested: boolean;
  t0: number;
  timer: NodeJS.Timeout | undefined;
  /** The current attempt's trace span (with a tracer provider only). */
  span?: RunSpan;
  /** The first attempt's span context, which the later attempts of a task that stored none continue. */
  traceOrigin?: TraceOrigin;
}

/** The rate window of a row: its type, or its type and rate-limit key. */
const rateKey = (row: RunnableTaskRow): string => (row.rate_limit_key === null ? row.type : `${row.type}\u0000${row.rate_limit_key}`);

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
  /** A run was given up at the stop (not a hub event: the metrics count it). */
  stoppedRun(run: StoppedRunNotice): void;
  /** Whether anyone observes attempts and task ends (no notice is built for nobody). */
  observed: { attempts: ReadonlySet<unknown>; taskEnds: ReadonlySet<unknown> };
  /** A handler attempt ended (metrics). */
  attemptEnded(attempt: AttemptNotice): void;
  /** A task's terminal end run here was written (metrics). */
  taskEnded(end: TaskEndNotice): void;
  /** A worker is free or a run is ready: the next group commit should claim. */
  workerFree(): void;
  /** The next run of an inline recurring row is due at `at`. */
  noteDue(at: number): void;
  /** Whether runs about to begin an attempt are still this engine's (see EngineStore.confirmRuns); absent: assumed. */
  confirmRuns?(checks: readonly RunCheck[]): RunCheckAnswer | Promise<RunCheckAnswer>;
  /** A retry was not begun: its row no longer carries the run (taken over, re-queued or cancelled elsewhere). */
  retryLost?(taskId: string): void;
  /** A reserved row was dropped unstarted (see EngineStore.forgetReservation). */
  forgetReservation?(id: string, reservedAt: number): void;
  /** Moves when a cancel of this process has ended (see EngineStore.rowsTakenAway); absent: never. */
  rowsTakenAway?(): number;
  /** Whether the store keeps rate windows shared by every process (see EngineStore.sharedRateWindows); absent: no. */
  sharedRateWindows?(): boolean;
  /** Whether this process's lease holds (see EngineStore.lease); absent: it always does. No attempt begins while it does not. */
  leaseHeld?(): boolean;
}

const roundMs = (ms: number) => Math.round(ms * 1000) / 1000;

/** The controller of a run before its first attempt: never aborted (each attempt gets its own). */
const NOT_STARTED = new AttemptSignal();

/**
 * Reservation ahead of free workers: a queue whose handlers are short takes more rows than it has
 * free workers, so one commit claims (and the next one starts and ends) many rows instead of a
 * handful. A row taken ahead stays Queued in the store, reserved by this engine, and becomes
 * InProgress only when its handler begins. A queue reserves only as many rows as its recent
 * attempts say it starts within the reservation budget, never more than MAX_CLAIM_AHEAD ×
 * concurrency in all, and none while an attempt of it runs longer than the budget; a reserved
 * row not started within the budget is handed back.
 */
export const MAX_CLAIM_AHEAD = 16;

/**
 * How long a reservation keeps other engines' claims off a row: four budgets. The owner hands a
 * row back when its budget runs out; the store's hold only matters when the owner died or its
 * writes stall, and is longer so that a commit slower than the budget does not let a second
 * engine take (and run) a row whose handler is about to begin here.
 */
export const reservationHoldMs = (budgetMs: number): number => 4 * budgetMs;
/** After the store said this process's lease is not surely alive (or its answer came too late), attempts are checked again this much later. */
const RECHECK_MS = 50;
/** After the run check failed to read (the store unavailable), it is tried again this much later. */
const READ_RETRY_MS = 100;
/** A run check's answer read before a cancel of this process ended (see EngineStore.rowsTakenAway). */
const STALE = Symbol('stale run check');
/** Weight of the newest attempt in a type's estimate when it is not slower than the estimate. */
const ESTIMATE_WEIGHT = 0.2;
/** A type's estimate is forgotten when it has not run for this long. */
const ESTIMATE_TTL_MS = 30_000;

/**
 * How many times its concurrency a queue may hold (running plus reserved): 1 (free workers only)
 * without an estimate, else the number of attempts of `estimateMs` that fit in the budget, plus one.
 */
export function claimAheadFactor(estimateMs: number | null, budgetMs: number): number {
  if (estimateMs === null) return 1;
  if (estimateMs <= 0) return MAX_CLAIM_AHEAD;
  return Math.max(1, Math.min(MAX_CLAIM_AHEAD, 1 + Math.floor(budgetMs / estimateMs)));
}

/** Handler time per task type: a slower attempt than the estimate replaces it at once; faster ones pull it down gradually. */
class AttemptEstimates {
  private readonly byType = new Map<string, { ms: number; at: number }>();

  note(type: string, ms: number, at: number): void {
    const e = this.byType.get(type);
    if (e === undefined) {
      this.byType.set(type, { ms, at });
      return;
    }
    e.ms = ms >= e.ms ? ms : e.ms + ESTIMATE_WEIGHT * (ms - e.ms);
    e.at = at;
  }

  /** The largest recent estimate among the given types; null when none of them ran recently. */
  worst(types: ReadonlySet<string>, now: number): number | null {
    let worst: number | null = null;
    for (const t of types) {
      const e = this.byType.get(t);
      if (e === undefined) continue;
      if (now - e.at > ESTIMATE_TTL_MS) {
        this.byType.delete(t);
        continue;
      }
      worst = worst === null ? e.ms : Math.max(worst, e.ms);
    }
    return worst;
  }
}

/**
 * The run state machine: claimed row → attempt (handler running) → retry wait → attempt … →
 * finished (Completed, Failed, Cancelled, or Pending again for an inline recurring row). Each
 * end is handed to the group commit; its events are emitted once it is written.
 */
export class RunLifecycle {
  readonly queues = new Map<string, QueueState>();
  /**
   * Every run from its claim to its end, keyed by the run itself: a fenced run whose handler
   * settles late is still here and ends only itself, never a newer run of the same task.
   */
  private readonly active = new Set<ActiveRun>();
  /** The newest run of each task (what cancel and the reservation notices name). */
  private readonly current = new Map<string, ActiveRun>();
  /**
   * Starts handed to the commit and not answered yet, by task, with their runs (a run may have
   * ended meanwhile, its end queued behind its start): what a claim of the row from its own
   * reservation carries on (see reserved()).
   */
  private readonly unwrittenStarts = new Map<string, { run: ActiveRun; start: StartedRun }>();
  private readonly limiter = new RateLimiter();
  private readonly estimates = new AttemptEstimates();
  /** Types seen per queue (whose estimates decide its reservations). */
  private readonly typesOf = new Map<string, Set<string>>();
  /** Prefix of this engine's run tokens (one per engine object), and the runs numbered so far. */
  private readonly runPrefix = randomUUID();
  private runs = 0;
  private pumping = false;
  /** Runs whose workers are held until the store's answer (asked one read at a time), and the runs waiting for the next read. */
  private confirming = false;
  private toConfirm: ActiveRun[] = [];
  /** No attempt is checked before this instant (performance.now()): the lease was not alive, or the read failed. */
  private holdUntil = 0;
  private holdTimer: NodeJS.Timeout | undefined;
  private reservationTimer: NodeJS.Timeout | undefined;
  /** Rows whose start this process's rate windows counted at their claim (`decide`). */
  private readonly counted = new Set<string>();
  /** Handlers called and not yet settled (one aborted at a stop, or timed out, may run on), and who waits for none. */
  private handlersRunning = 0;
  private readonly handlersIdle: (() => void)[] = [];

  constructor(private readonly d: RunLifecycleDeps) {
    for (const q of d.options.queues.values()) {
      this.queues.set(q.name, { ...q, running: 0, ready: [] });
      this.typesOf.set(q.name, new Set());
    }
  }

  /**
   * Room per queue (what the next commit may reserve): its free workers, plus, when its recent
   * attempts are short, as many rows as start within the reservation budget. Nothing ahead while
   * one of its attempts has run longer than the budget.
   */
  claims(): { queue: string; limit: number }[] {
    this.counted.clear(); // what a claim that was rolled back left (one commit in flight at a time)
    const out: { queue: string; limit: number }[] = [];
    const now = performance.now();
    const budget = this.d.options.reservationBudgetMs;
    const slow = new Set<QueueState>();
    for (const r of this.active) if (r.phase === 'running' && now - r.t0 > budget) slow.add(r.queue);
    for (const q of this.queues.values()) {
      const types = this.typesOf.get(q.name)!;
      // A rate-limited type is taken for free workers only: its window counts a start when the row is taken.
      const limited = [...types].some((t) => this.d.registry.get(t)?.rateLimit !== undefined);
      const factor = slow.has(q) || limited ? 1 : claimAheadFactor(this.estimates.worst(types, Date.now()), budget);
      const free = q.concurrency * factor - q.running - q.ready.length;
      if (free > 0) out.push({ queue: q.name, limit: free });
    }
    return out;
  }

  /** Rate limits: run the candidate now, or leave it throttled until the returned instant. */
  readonly decide: ClaimDecider = (row) => {
    // Counted at the instant the claim reserves the row (the store passes it on the candidate).
    const verdict = this.takeStart(row, row.reserved_at);
    if (verdict === true) this.counted.add(row.id);
    return verdict;
  };

  /** A start of this row's type (and rate key) at `at`: true, or the instant its window has room. */
  private takeStart(row: RunnableTaskRow, at: number): true | number {
    const limit = this.d.registry.get(row.type)?.rateLimit;
    return limit === undefined ? true : this.limiter.take(rateKey(row), limit, at);
  }

  countRunning(): number {
    let n = 0;
    for (const r of this.active) if (r.phase === 'running') n++;
    return n;
  }

  /**
   * Starts waiting runs (claimed ahead, or retries whose backoff is over) while their queue has a
   * free worker. A handler that settles at once frees its worker inside this loop: the loop goes
   * on (a nested call returns at once) instead of recursing.
   *
   * No attempt begins for a row that is no longer this engine's: a cancel, requeue or takeover
   * committed by any process is seen by one read (confirmRuns) for all the attempts about to
   * begin, the worker held meanwhile. Only a row whose claim was answered in this very turn
   * begins without it (that answer is as recent as the read would be).
   */
  pump(): void {
    if (this.pumping) return;
    // Past its lease this process's rows may be another's: nothing begins until it is renewed.
    if (this.d.leaseHeld?.() === false) return;
    this.pumping = true;
    try {
      let progress = true;
      while (progress) {
        progress = false;
        const now = performance.now();
        const held = now < this.holdUntil;
        const budget = this.d.options.reservationBudgetMs;
        const asks: ActiveRun[] = [];
        for (const q of this.queues.values()) {
          for (let i = 0; i < q.ready.length && q.running < q.concurrency;) {
            const run = q.ready[i]!;
            if (run.phase !== 'retryWait' && run.phase !== 'reserved') {
              q.ready.splice(i, 1);
              continue;
            }
            // A reservation past its budget (the process stalled: its timer did not run, or the
            // claim's answer came late) may be taken by any claim once its hold lapses: handed
            // back, never begun (see reservationHoldMs).
            if (run.phase === 'reserved' && now - run.reservedSince >= budget) {
              this.handBack(run); // leaves the ready list
              continue;
            }
            if (this.d.confirmRuns === undefined || (run.fresh && run.phase === 'reserved')) {
              q.ready.splice(i, 1);
              this.beginAttempt(run);
              progress = true;
              continue;
            }
            if (held || (run.phase === 'retryWait' && !run.startWritten)) {
              i++;
              continue;
            }
            q.ready.splice(i, 1);
            q.running++; // held for the run until the store answers
            run.checking = true;
            asks.push(run);
          }
        }
        if (asks.length === 0) continue;
        this.toConfirm.push(...asks);
        if (this.askStore()) progress = true;
      }
    } finally {
      this.pumping = false;
    }
  }

  /**
   * Asks the store about the runs waiting for it, unless a read is in flight (its answer asks for
   * the rest). True when the answer came at once and was applied.
   */
  private askStore(): boolean {
    if (this.confirming || this.toConfirm.length === 0) return false;
    const runs = this.toConfirm.splice(0);
    const checks = runs.map((r) => ({ id: r.row.id, reservedAt: r.reservedAt, token: r.phase === 'reserved' ? null : r.runToken }));
    const takenAway = this.d.rowsTakenAway?.();
    let answer: RunCheckAnswer | Promise<RunCheckAnswer>;
    try {
      answer = this.d.confirmRuns!(checks);
    } catch (err) {
      this.confirmed(runs, err);
      return true;
    }
    if (!(answer instanceof Promise)) {
      this.confirmed(runs, answer);
      return true;
    }
    this.confirming = true;
    const sent = performance.now();
    answer.then(
      (a) => this.afterRead(runs, takenAway !== this.d.rowsTakenAway?.() ? STALE : a, sent),
      (err: unknown) => this.afterRead(runs, err, sent),
    );
    return false;
  }

  private afterRead(runs: ActiveRun[], answer: RunCheckAnswer | unknown, sent: number): void {
    this.confirming = false;
    // An answer that took longer than the reservation budget (the process stalled meanwhile) is
    // too old to begin on: the runs are asked about again (a reservation past its budget is handed back).
    if (performance.now() - sent > this.d.options.reservationBudgetMs) answer = runs.map(() => null);
    // A read that may predate a cancel of this process already answered: asked again at once.
    const recheckMs = answer === STALE ? 0 : RECHECK_MS;
    if (answer === STALE) answer = runs.map(() => null);
    // Handlers that settle at once free their workers for the pump below, not for a nested one.
    this.pumping = true;
    try {
      this.confirmed(runs, answer, recheckMs);
    } finally {
      this.pumping = false;
    }
    this.pump();
    this.askStore();
  }

  /**
   * The store's answer for runs whose workers were held: each still waiting begins, or is dropped
   * (no longer this engine's), or waits first in line while the lease is not surely alive (null)
   * or when the read failed; nothing is asked then for a moment.
   */
  private confirmed(runs: ActiveRun[], answer: RunCheckAnswer | unknown, recheckMs = RECHECK_MS): void {
    const clear = Array.isArray(answer) && answer.length === runs.length;
    const back: ActiveRun[] = [];
    runs.forEach((run, i) => {
      run.checking = false;
      run.queue.running--;
      // Dropped, handed back, cancelled or given up while the store was asked.
      if (run.phase !== 'reserved' && run.phase !== 'retryWait') return;
      const verdict = clear ? ((answer as RunCheckAnswer)[i] ?? null) : null;
      if (verdict === null) back.push(run);
      else if (verdict) this.beginAttempt(run);
      else if (run.phase === 'reserved') this.dropReserved(run);
      else this.loseRetry(run);
    });
    if (back.length > 0) {
      for (const run of back.reverse()) run.queue.ready.unshift(run);
      if (!clear) this.d.options.onError(answer, 'run check before the handler (retried)');
      this.hold(clear ? recheckMs : READ_RETRY_MS);
    }
  }

  /** Nothing is asked of the store for `ms`; then the waiting runs are looked at again. */
  private hold(ms: number): void {
    this.holdUntil = performance.now() + ms;
    if (this.holdTimer !== undefined) return;
    this.holdTimer = setTimeout(() => {
      this.holdTimer = undefined;
      this.pump();
    }, ms);
    this.holdTimer.unref?.();
  }

  /** A retry whose row no longer carries its run (taken over, re-queued, cancelled elsewhere): it is not begun, nothing more is written. */
  private loseRetry(run: ActiveRun): void {
    this.leaveRetryWait(run);
    run.fenced = true;
    run.log.close();
    this.ended(run);
    this.d.retryLost?.(run.row.id);
  }

  /**
   * Rows a commit's claim reserved for this engine, just answered: those with a free worker begin
   * at once, unless `checkFirst` (a cancel of this process was answered while the claim was in
   * flight: the claim may have read a row before it), when they are asked about first like any waiting row.
   */
  claimed(rows: readonly RunnableTaskRow[], checkFirst = false): void {
    const runs: ActiveRun[] = [];
    for (const row of rows) {
      const run = this.reserved(row);
      if (run !== undefined) runs.push(run);
    }
    if (!checkFirst) for (const run of runs) run.fresh = true;
    try {
      this.pump();
    } finally {
      for (const run of runs) run.fresh = false;
    }
  }

  /** A row reserved for this engine (still Queued): it waits for a free worker. */
  reserved(row: RunnableTaskRow): ActiveRun | undefined {
    const o = this.d.options;
    const reg = this.d.registry.get(row.type);
    const queue = this.queues.get(row.queue);
    if (reg === undefined || queue === undefined) return undefined; // cannot happen: claims filter both
    if (row.reclaimed_from !== null && this.carriedOn(row)) return undefined;
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
      runToken: '',
      reservedAt: row.reserved_at,
      // The budget runs from the reservation (the commit's instant), not from when its answer came.
      reservedSince: performance.now() - Math.max(0, o.clock() - row.reserved_at),
      phase: 'reserved',
      fenced: false,
      fresh: false,
      checking: false,
      startWritten: false,
      controller: NOT_STARTED,
      log: new RunLog(row.id, o.logCapPerRun, o.clock, row.last_log_sequence, (l) => this.d.commit.log(l)),
      cancelRequested: false,
      t0: 0,
      timer: undefined,
    };
    // A row claimed again (its earlier reservation here lapsed) is held under the new reservation only.
    const earlier = this.current.get(row.id);
    if (earlier !== undefined && earlier.phase === 'reserved') this.dropReserved(earlier);
    this.active.add(run);
    this.current.set(row.id, run);
    queue.ready.push(run);
    this.typesOf.get(queue.name)!.add(row.type);
    // A claim counted by the store's shared windows is counted here too, so that a retry's start
    // (asked of this process's windows) sees it.
    if (!this.counted.delete(row.id) && reg.rateLimit !== undefined) this.limiter.record(rateKey(row), row.reserved_at, reg.rateLimit);
    this.armReservationTimer();
    return run;
  }

  /**
   * A row this engine's claim took from this engine's own reservation (its hold over: the process
   * stalled, or a commit was slow) on which a handler began here under that reservation, the
   * start not written yet (it waits for the commit after the claim's): the row never left this
   * engine, so that run is the row's run. It goes on under the new reservation, which its start
   * then names; no second run of the row begins. True when such a run was found. A run fenced
   * meanwhile is never carried on: its stale start then fails, and the row runs anew. (A lease
   * lapse fences none of these: a run whose start is unwritten goes on through a lapse, its row
   * kept by the store; see leaseLapsed.)
   */
  private carriedOn(row: RunnableTaskRow): boolean {
    const unwritten = this.unwrittenStarts.get(row.id);
    if (unwritten === undefined || unwritten.run.fenced || unwritten.start.reservedAt !== row.reclaimed_from) return false;
    unwritten.start.reservedAt = row.reserved_at;
    unwritten.run.reservedAt = row.reserved_at;
    return true;
  }

  /**
   * A reserved row is cancelled or taken by someone else (heard from this process or the store):
   * it is forgotten before its handler begins. False when it is not waiting here reserved.
   */
  forgetReserved(id: string): boolean {
    const run = this.current.get(id);
    if (run === undefined || run.phase !== 'reserved') return false;
    this.dropReserved(run);
    this.d.forgetReservation?.(id, run.reservedAt);
    return true;
  }

  private dropReserved(run: ActiveRun): void {
    this.leaveRetryWait(run);
    run.log.close();
    this.ended(run);
  }

  /** The run is over here (ended, fenced, given up or handed back). */
  private ended(run: ActiveRun): void {
    this.active.delete(run);
    if (this.current.get(run.row.id) === run) this.current.delete(run.row.id);
  }

  /** Reserved rows that waited the whole budget are handed back (Queued, for any engine). */
  private armReservationTimer(): void {
    if (this.reservationTimer !== undefined) return;
    let oldest = Infinity;
    for (const r of this.active) if (r.phase === 'reserved') oldest = Math.min(oldest, r.reservedSince);
    if (oldest === Infinity) return;
    const budget = this.d.options.reservationBudgetMs;
    this.reservationTimer = setTimeout(() => {
      this.reservationTimer = undefined;
      const now = performance.now();
      for (const r of [...this.active]) if (r.phase === 'reserved' && now - r.reservedSince >= budget) this.handBack(r);
      this.armReservationTimer();
    }, Math.max(1, oldest + budget - performance.now()));
    this.reservationTimer.unref?.();
  }

  /** The reservation is dropped in the store; the row stays Queued for any engine. */
  private handBack(run: ActiveRun): void {
    this.dropReserved(run);
    this.d.commit.release({ id: run.row.id, reservedAt: run.reservedAt });
  }

  /**
   * engine.cancel of a row running here: undefined when it is not active in this engine (a row
   * reserved here is forgotten first and then cancelled like any Queued row by the caller).
   * A running handler is aborted (the row becomes Cancelled when it settles); a run waiting for
   * its retry is cancelled at once.
   */
  cancel(id: string): Promise<CancelResult> | undefined {
    const run = this.current.get(id);
    if (run === undefined || this.forgetReserved(id)) return undefined;
    if (run.phase === 'running') {
      if (!run.cancelRequested) {
        run.cancelRequested = true;
        run.controller.abort(new TaskCancelledError('The task was cancelled'));
      }
      return Promise.resolve('Cancelling');
    }
    if (run.phase === 'retryWait') {
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

  /**
   * Engine stops: reserved rows are handed back at once (Queued, for any engine); runs waiting
   * for a retry are given up now.
   */
  abandonWaiting(): void {
    clearTimeout(this.reservationTimer);
    this.reservationTimer = undefined;
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    for (const run of [...this.active]) {
      if (run.phase === 'reserved') this.handBack(run);
      else if (run.phase === 'retryWait') this.abandon(run);
    }
  }

  /**
   * The lease lapsed (other processes may have recovered this one's rows): reserved rows and runs
   * waiting for their next attempt are dropped here without a write (the store gives their rows
   * up). Returns the rows whose handlers still run: their ends are written as usual, and fenced
   * if the row was taken meanwhile.
   *
   * A run waiting for its retry whose writes are not all written (its start, or its failed
   * attempt: `unwritten`, the rows named by run writes queued or in flight) goes on like a running
   * one: the store keeps its row (it is among the rows named to it), so a run dropped here would
   * leave the row InProgress under a run nothing goes on with once those writes land. Its retry
   * begins only after its start is written, the lease renewed and the store confirms that the row
   * still carries the run (see pump); a row taken meanwhile fences it (its start or its check fails).
   */
  leaseLapsed(unwritten: ReadonlySet<string> = new Set()): string[] {
    const running: string[] = [];
    for (const run of [...this.active]) {
      if (run.phase === 'running') running.push(run.row.id);
      else if (run.phase === 'retryWait' && (!run.startWritten || unwritten.has(run.row.id))) running.push(run.row.id);
      else if (run.phase === 'reserved' || run.phase === 'retryWait') {
        run.fenced = true;
        this.dropReserved(run);
      }
    }
    clearTimeout(this.reservationTimer);
    this.reservationTimer = undefined;
    return running;
  }

  /** Resolves once no handler this engine called is still running (at once when none is). */
  handlersSettled(): Promise<void> {
    if (this.handlersRunning === 0) return Promise.resolve();
    return new Promise((resolve) => this.handlersIdle.push(resolve));
  }

  private handlerSettled(): void {
    if (--this.handlersRunning === 0) for (const resolve of this.handlersIdle.splice(0)) resolve();
  }

  /** Engine stops after the grace period: every remaining run is given up. */
  abandonAll(): void {
    // No claim comes after this; a start the stop's drain gives up is never answered.
    this.unwrittenStarts.clear();
    for (const run of [...this.active]) {
      if (run.phase === 'reserved') this.handBack(run);
      else this.abandon(run);
    }
  }

  /** The run is given up; its row becomes ServiceStopped; a late outcome is ignored. */
  private abandon(run: ActiveRun): void {
    if (run.phase === 'running') {
      if (!run.fenced && this.d.observed.attempts.size > 0) this.noteAttempt(run, 'stopped', performance.now() - run.t0);
      run.queue.running--;
      run.controller.abort(new ServiceStoppingError('The engine is stopping'));
      run.span?.end(new ServiceStoppingError('The engine is stopping'));
      run.span = undefined;
    }
    this.leaveRetryWait(run);
    run.log.close();
    this.ended(run);
    if (run.fenced) return;
    this.d.commit.serviceStopped({ id: run.row.id, token: run.runToken, auditLevel: run.row.audit_level });
    this.d.stoppedRun({ taskId: run.row.id, taskType: run.row.type, queueName: run.row.queue, at: this.d.options.clock() });
  }

  /**
   * The store refused the run's start: the row was cancelled or taken by another engine after its
   * handler began here. The attempt is aborted and nothing more of the run is written.
   */
  private fence(run: ActiveRun): void {
    run.fenced = true;
    if (run.phase === 'running') {
      run.controller.abort(new TaskCancelledError('The task was cancelled or taken by another engine before its start was recorded'));
      return; // settle frees the worker
    }
    if (run.phase === 'finished') return;
    this.leaveRetryWait(run);
    run.log.close();
    this.ended(run);
  }

  private noteAttempt(run: ActiveRun, result: AttemptResult, elapsedMs: number): void {
    this.d.attemptEnded({ taskId: run.row.id, taskType: run.row.type, queueName: run.row.queue, attempt: run.attempt, result, seconds: elapsedMs / 1000 });
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
    run.span = startRunSpan(run.row, run.attempt, run.traceOrigin);
    if (run.span && !run.traceOrigin) run.traceOrigin = run.span.origin;
    if (token === 1) {
      // The row becomes InProgress at this instant, written by the next commit; Started goes out once it is.
      const began = this.d.options.clock();
      run.runToken = `${this.runPrefix}:${++this.runs}`;
      const started = startedEvent(began, run);
      const unwritten = { run, start: { id: run.row.id, reservedAt: run.reservedAt, auditLevel: run.row.audit_level, startedAt: began, token: run.runToken } };
      this.unwrittenStarts.set(run.row.id, unwritten);
      const answered = () => {
        if (this.unwrittenStarts.get(run.row.id) === unwritten) this.unwrittenStarts.delete(run.row.id);
      };
      this.d.commit.start({
        start: unwritten.start,
        after: () => {
          answered();
          run.startWritten = true;
          if (!run.fenced) this.d.emit(started);
          if (run.phase === 'retryWait' && run.queue.ready.includes(run)) this.pump(); // a retry waited for it
        },
        lost: () => {
          answered();
          this.fence(run);
        },
      });
    }
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
      result = run.span ? run.span.call(run.reg.handler, request, ctx) : run.reg.handler(request, ctx);
    } catch (err) {
      this.settle(run, token, false, err);
      return;
    }
    if (result !== null && typeof result === 'object' && typeof (result as PromiseLike<unknown>).then === 'function') {
      this.handlersRunning++;
      (result as PromiseLike<unknown>).then(
        () => {
          this.handlerSettled();
          this.settle(run, token, true, undefined);
        },
        (err: unknown) => {
          this.handlerSettled();
          this.settle(run, token, false, err);
        },
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
    this.estimates.note(run.row.type, elapsed, Date.now());
    clearTimeout(run.timer);
    run.timer = undefined;
    run.phase = 'finished';
    run.queue.running--;
    this.d.workerFree();
    this.pump();
    if (run.fenced) {
      run.log.close();
      this.ended(run);
      return;
    }
    if (this.d.observed.attempts.size > 0) {
      const result: AttemptResult = run.cancelRequested ? 'cancelled' : ok ? 'succeeded' : timedOut ? 'timed_out' : 'failed';
      this.noteAttempt(run, result, elapsed);
    }
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
        { id: run.row.id, token: run.runToken, attempt: failed, exception },
        timeoutEvent ? () => this.d.emit(timeoutEvent()) : undefined,
      );
      run.timer = setTimeout(() => this.retryDue(run), delay);
      return;
    }
    this.finish({ run, outcome: 'Failed', executionTimeMs: 0, exception, timedOut, error: err });
  }

  /**
   * A retry's backoff is over: it waits for a worker, once its type's rate window has room (a
   * retry is a start like any other); until then it waits for the window. Windows a shared store
   * keeps (counting every process's claims) are asked in the next commit; else this process's.
   */
  private retryDue(run: ActiveRun): void {
    run.timer = undefined;
    if (run.phase !== 'retryWait') return;
    const limit = run.reg.rateLimit;
    if (limit !== undefined && this.d.sharedRateWindows?.() === true) {
      const row = run.row;
      this.d.commit.retryStart({
        retry: { id: row.id, type: row.type, rateLimitKey: row.rate_limit_key, rateLimit: limit },
        answer: (verdict) => this.retryVerdict(run, verdict),
      });
      return;
    }
    this.retryVerdict(run, this.takeStart(run.row, this.d.options.clock()));
  }

  /** The retry's window had room (it waits for a worker), or has room at the instant given (it asks again then). */
  private retryVerdict(run: ActiveRun, verdict: true | number): void {
    if (run.phase !== 'retryWait' || run.timer !== undefined) return; // cancelled or stopped meanwhile
    if (verdict !== true) {
      run.timer = setTimeout(() => this.retryDue(run), Math.max(1, verdict - this.d.options.clock()));
      return;
    }
    run.queue.ready.push(run);
    this.pump();
  }

  /** Records the end of a delivery (or of one inline recurring run) in the next group commit. */
  private finish(end: RunEnd): void {
    const { run, outcome, executionTimeMs, exception } = end;
    const clock = this.d.options.clock;
    run.phase = 'finished';
    run.log.close();
    this.ended(run);
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
        id: row.id, token: run.runToken, auditLevel: row.audit_level, endedAt: now, executionTimeMs, outcome, exception, nextStatus, nextScheduledAt, recurring,
      },
      after: () => {
        if (nextScheduledAt !== null) this.d.noteDue(nextScheduledAt);
        if (!recurring && this.d.observed.taskEnds.size > 0) {
          this.d.taskEnded({ taskId: row.id, taskType: row.type, queueName: row.queue, seconds: Math.max(0, clock() - row.created_at) / 1000 });
        }
        for (const e of events) this.d.emit(e());
        end.onRecorded?.();
      },
      lost: end.onLost,
    });
  }
}
