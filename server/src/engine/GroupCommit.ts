import type {
  AttemptFailure, CancelOutcome, CommitBatch, CommitOutcome, DispatchStep, EngineStore, FinishedRun, InsertOutcome, NewTask,
  QueueCapacities, Reservation, RetryStart, RunnableTaskRow, StartedRun, StoppedRun,
} from '../storage/EngineStore.js';
import { StoreUnavailableError } from '../storage/EngineStore.js';
import type { PendingLog } from './RunLog.js';
import { storableText } from './storableText.js';

/** Inserts per commit; the rest waits for the next one (keeps a commit short). */
const MAX_INSERTS_PER_COMMIT = 4000;
const RETRY_MIN_MS = 5;
const RETRY_MAX_MS = 1000;

interface Waiter<T> {
  resolve(value: T): void;
  reject(err: unknown): void;
}

interface PendingInsert extends Waiter<InsertOutcome> {
  task: NewTask;
}

interface PendingCancel extends Waiter<CancelOutcome> {
  id: string;
}

/** A finished run waiting to be written; `after` runs once it is, `lost` when the row was no longer InProgress. */
export interface PendingFinish {
  run: FinishedRun;
  after: () => void;
  lost: (() => void) | undefined;
}

/** A run start waiting to be written; `after` runs once it is, `lost` when the row was no longer reserved here. */
export interface PendingStart {
  start: StartedRun;
  after: () => void;
  lost: () => void;
}

/** A retry asking the store's shared rate windows for its start; `answer` gets the verdict once it is written. */
export interface PendingRetryStart {
  retry: RetryStart;
  answer: (verdict: true | number) => void;
}

interface PendingAttemptFailure {
  failure: AttemptFailure;
  after: (() => void) | undefined;
}

/** Changes by kind: those queued, or those one commit takes (each list oldest first). */
interface Changes {
  inserts: PendingInsert[];
  cancels: PendingCancel[];
  starts: PendingStart[];
  failures: PendingAttemptFailure[];
  finishes: PendingFinish[];
  stops: StoppedRun[];
  releases: Reservation[];
  retryStarts: PendingRetryStart[];
  logs: PendingLog[];
}

const noChanges = (): Changes => ({ inserts: [], cancels: [], starts: [], failures: [], finishes: [], stops: [], releases: [], retryStarts: [], logs: [] });

function countChanges(c: Changes): number {
  return c.inserts.length + c.cancels.length + c.starts.length + c.failures.length + c.finishes.length + c.stops.length +
    c.releases.length + c.retryStarts.length + c.logs.length;
}

/** How many new tasks may wait to be written, and what a caller past that meets. */
export interface UnwrittenTaskBound {
  maxUnwrittenTasks: number;
  whenFull: 'wait' | 'reject';
}

export interface GroupCommitHooks {
  /** Before each commit: what to promote and claim, or null when the engine must not claim now. */
  dispatchStep(now: number): DispatchStep | null;
  /** A Pending row is due at `at` (a new row, or a keyed row whose due time changed). */
  noteDue(at: number): void;
  /** After each commit that carried a dispatch step. */
  promoted(count: number, limit: number): void;
  /** After commit (and after the waiters of the batch): rows now reserved for this engine (still Queued). */
  claimed(rows: RunnableTaskRow[], checkFirst: boolean): void;
  /** A write of a run (start, failed attempt, end, stop) found the row no longer the run's: nothing was applied. */
  staleRunWrite(kind: 'start' | 'attempt' | 'end' | 'stop', taskId: string): void;
  /** The writer is idle: nothing queued. */
  idle(): void;
  /** A commit failed or succeeded again after failing. */
  writeState(failing: unknown | null): void;
  onError(err: unknown, where: string): void;
  /** After each successful store commit: how long the store took (seconds). */
  committed?(seconds: number): void;
}

/**
 * The write side of the engine: collects every change (new tasks, cancels, run starts, finished
 * runs, failed attempts, stopped runs, reservations handed back, execution logs) and writes them together in one `store.commit`, at most
 * one commit in flight. Callers' promises settle after the commit. When the store is unavailable
 * (locked, disk full, I/O error) nothing is dropped: the batch goes back to the front of the
 * queue and the next attempt waits with backoff (on a timer: the event loop never blocks).
 */
export class GroupCommit {
  private queue: Changes = noChanges();

  private scheduled = false;
  private inFlight: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay = 0;
  /** Since when the oldest queued change (not yet handed to the store) has waited (ms, engine clock); null: none. */
  private queuedSince: number | null = null;
  /** Changes of the commit in flight (handed to the store, not yet known written), and since when the oldest waits. */
  private inFlightCount = 0;
  /** The changes of the batch in flight (empty when none). */
  private inFlightChanges: Changes = noChanges();
  private inFlightSince: number | null = null;
  private lastError: unknown = null;
  /** Set while the store must not be written (its file was deleted or replaced). */
  private blocked: Error | null = null;
  /** New tasks of the commit in flight; callers waiting for room among the unwritten tasks. */
  private inFlightInserts = 0;
  private roomWaiters: (() => void)[] = [];

  constructor(
    private readonly store: EngineStore,
    private readonly capacities: QueueCapacities,
    private readonly clock: () => number,
    private readonly hooks: GroupCommitHooks,
    private readonly bound: UnwrittenTaskBound = { maxUnwrittenTasks: Infinity, whenFull: 'wait' },
  ) {}

  // ------------------------------------------------------------ queueing

  /**
   * A new task, written by a coming commit. At most `bound.maxUnwrittenTasks` wait to be written
   * (queued or in flight): past it the caller waits for room, or is refused (`bound.whenFull`).
   */
  insert(task: NewTask): Promise<InsertOutcome> {
    if (this.full() || this.roomWaiters.length > 0) return this.insertWhenRoom(task);
    return this.queueInsert(task);
  }

  private full(): boolean {
    return this.queue.inserts.length + this.inFlightInserts >= this.bound.maxUnwrittenTasks;
  }

  private async insertWhenRoom(task: NewTask): Promise<InsertOutcome> {
    while (this.full()) {
      if (this.bound.whenFull === 'reject') {
        throw new Error(
          `dispatch: ${this.bound.maxUnwrittenTasks} tasks already wait to be written (createEngine option "maxUnwrittenTasks"); ` +
            'the store is slow or unavailable: try again later',
        );
      }
      await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    }
    return this.queueInsert(task);
  }

  private queueInsert(task: NewTask): Promise<InsertOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.inserts.push({ task, resolve, reject });
      this.queued();
    });
  }

  cancel(id: string): Promise<CancelOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.cancels.push({ id, resolve, reject });
      this.queued();
    });
  }

  /** A handler began on a reserved row: its start (InProgress, started_at, audit) rides the next commit. */
  start(p: PendingStart): void {
    this.queue.starts.push(p);
    this.queued();
  }

  /** A reserved row handed back unstarted. */
  release(r: Reservation): void {
    this.queue.releases.push(r);
    this.queued();
  }

  /** A retry's start asked of the store's shared rate windows, in the next commit. */
  retryStart(p: PendingRetryStart): void {
    this.queue.retryStarts.push(p);
    this.queued();
  }

  attemptFailed(failure: AttemptFailure, after?: () => void): void {
    this.queue.failures.push({ failure, after });
    this.queued();
  }

  finish(f: PendingFinish): void {
    this.queue.finishes.push(f);
    this.queued();
  }

  serviceStopped(s: StoppedRun): void {
    this.queue.stops.push(s);
    this.queued();
  }

  log(l: PendingLog): void {
    this.queue.logs.push(l);
    if (this.queuedSince === null) this.queuedSince = this.clock();
  }

  private queued(): void {
    if (this.queuedSince === null) this.queuedSince = this.clock();
    this.schedule();
  }

  hasWork(): boolean {
    return this.queuedCount() > 0;
  }

  /** Changes not yet written (logs included): those queued and those of the commit in flight. */
  /** Rows named by run writes (starts, failed attempts, ends, stops) queued or in flight: their runs still count on their rows. */
  runsUnwritten(): string[] {
    const ids: string[] = [];
    for (const c of [this.queue, this.inFlightChanges]) {
      for (const x of c.starts) ids.push(x.start.id);
      for (const x of c.failures) ids.push(x.failure.id);
      for (const x of c.finishes) ids.push(x.run.id);
      for (const x of c.stops) ids.push(x.id);
    }
    return ids;
  }

  get unwritten(): number {
    return this.queuedCount() + this.inFlightCount;
  }

  /** Age (ms) of the oldest change not yet written, queued or in flight (the same set as `unwritten`); 0 when none. */
  oldestUnwrittenMs(now: number): number {
    const since = this.inFlightSince === null ? this.queuedSince : this.queuedSince === null ? this.inFlightSince : Math.min(this.inFlightSince, this.queuedSince);
    return since === null ? 0 : Math.max(0, now - since);
  }

  private queuedCount(): number {
    return countChanges(this.queue);
  }

  /**
   * Nothing is written while blocked (changes stay queued in memory); unblock() resumes.
   * Used when the store's file was deleted or replaced under the engine.
   */
  block(reason: Error): void {
    this.blocked = reason;
  }

  unblock(): void {
    if (this.blocked === null) return;
    this.blocked = null;
    this.schedule();
  }

  /** The error of the last failed commit, null once a commit succeeded again. */
  get failing(): unknown {
    return this.lastError;
  }

  // ------------------------------------------------------------ the loop

  /** A commit soon (next turn of the event loop), unless one is waiting out a backoff. */
  schedule(): void {
    if (this.scheduled || this.retryTimer !== undefined) return;
    this.scheduled = true;
    if (this.inFlight !== null) return; // the running commit schedules the next one when it ends
    setImmediate(() => this.run());
  }

  /** Resolves when no commit is in flight. */
  async settled(): Promise<void> {
    while (this.inFlight !== null) await this.inFlight;
  }

  /**
   * Writes everything queued now (used by stop). Gives up when the store stays unavailable
   * for `giveUpMs`: what is left is then recovered at the next start (rows still InProgress).
   */
  async drain(giveUpMs: number): Promise<void> {
    const deadline = Date.now() + giveUpMs;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.settled();
    while (this.hasWork()) {
      await this.settled();
      const p = this.commitOnce(null);
      this.inFlight = p.then(() => undefined);
      const ok = await p;
      this.inFlight = null;
      if (!ok) {
        if (Date.now() >= deadline) {
          this.hooks.onError(this.lastError, `stop: ${this.unwritten} change(s) could not be written; recovery applies at the next start`);
          this.failAll(new Error('The engine stopped before the change could be written'));
          return;
        }
        await new Promise((r) => setTimeout(r, Math.min(this.retryDelay || RETRY_MIN_MS, Math.max(1, deadline - Date.now()))));
      }
    }
    if (this.scheduled) setImmediate(() => this.run());
  }

  private run(): void {
    if (this.inFlight !== null) return;
    this.scheduled = false;
    const p = this.commitOnce((now) => this.hooks.dispatchStep(now)).then((ok) => {
      this.inFlight = null;
      if (!ok) {
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          this.scheduled = false;
          this.schedule();
        }, this.retryDelay);
        return;
      }
      if (this.scheduled || this.hasWork()) {
        this.scheduled = false;
        this.schedule();
      } else {
        this.hooks.idle();
      }
    });
    this.inFlight = p;
  }

  /** One commit of what is queued. False: the store was unavailable; everything went back in the queue. */
  private async commitOnce(dispatchStep: ((now: number) => DispatchStep | null) | null): Promise<boolean> {
    if (this.blocked !== null) {
      if (!this.hasWork()) return true;
      this.failed(this.blocked);
      return false;
    }
    const now = this.clock();
    const taking = this.queue;
    this.queue = noChanges();
    if (taking.inserts.length > MAX_INSERTS_PER_COMMIT) {
      this.queue.inserts = taking.inserts.slice(MAX_INSERTS_PER_COMMIT);
      taking.inserts = taking.inserts.slice(0, MAX_INSERTS_PER_COMMIT);
    }
    const dispatching = dispatchStep === null ? null : dispatchStep(now);
    const taken = countChanges(taking);
    if (dispatching === null && taken === 0) {
      return true; // nothing to write and nothing to claim
    }
    // The batch is in flight until the store answers: still unwritten, with the age it had queued.
    this.inFlightCount = taken;
    this.inFlightChanges = taking;
    this.inFlightInserts = taking.inserts.length;
    this.inFlightSince = taken === 0 ? null : this.queuedSince;
    if (this.queuedCount() === 0) this.queuedSince = null;
    try {
      return await this.writeBatch(now, dispatching, taking);
    } finally {
      this.inFlightCount = 0;
      this.inFlightChanges = noChanges();
      this.inFlightInserts = 0;
      this.inFlightSince = null;
      // Callers waiting for room look again (what could not be written is back in the queue).
      for (const wake of this.roomWaiters.splice(0)) wake();
    }
  }

  private async writeBatch(now: number, dispatching: DispatchStep | null, changes: Changes): Promise<boolean> {
    const { inserts, cancels, starts, failures, finishes, stops, releases, retryStarts, logs } = changes;
    const batch: CommitBatch = {
      now,
      logs: logs.map((l) => l.row),
      insertTasks: inserts.map((i) => i.task),
      cancels: cancels.map((c) => c.id),
      startRuns: starts.map((s) => s.start),
      attemptFailures: failures.map((f) => f.failure),
      completeRuns: finishes.map((f) => f.run),
      serviceStopped: stops,
      releases,
      ...(retryStarts.length > 0 ? { retryStarts: retryStarts.map((r) => r.retry) } : {}),
      capacities: this.capacities,
      dispatching,
    };
    let out: CommitOutcome;
    const t0 = performance.now();
    const takenAway = this.store.rowsTakenAway?.();
    try {
      out = await this.store.commit(batch);
      this.hooks.committed?.((performance.now() - t0) / 1000);
    } catch (err) {
      if (err instanceof StoreUnavailableError) {
        this.requeue(changes);
        this.failed(err);
        return false;
      }
      // A refused input: find it by writing each change on its own.
      this.hooks.onError(err, 'group commit (writing its changes one by one)');
      return this.isolate(now, changes);
    }
    this.succeeded();
    const after: (() => void)[] = [];
    logs.forEach((l, i) => (l.entry.id = out.logIds[i]!));
    inserts.forEach((p, i) => {
      const o = out.inserted[i]!;
      if (o.status === 'Pending') this.hooks.noteDue(p.task.dueAt);
      after.push(() => p.resolve(o));
    });
    cancels.forEach((c, i) => after.push(() => c.resolve(out.cancelled[i]!)));
    starts.forEach((p, i) => after.push(this.outcomeOfStart(p, out.started[i] === true)));
    failures.forEach((f, i) => after.push(this.outcomeOfFailure(f, out.attemptsRecorded[i] !== false)));
    finishes.forEach((f, i) => after.push(this.outcomeOfFinish(f, out.finished[i] === true)));
    stops.forEach((s, i) => {
      if (out.stopped[i] === false) after.push(() => this.hooks.staleRunWrite('stop', s.id));
    });
    retryStarts.forEach((r, i) => after.push(() => r.answer(out.retryStarts?.[i] ?? true)));
    for (const a of after) {
      try {
        a();
      } catch (err) {
        this.hooks.onError(err, 'after commit');
      }
    }
    if (dispatching !== null) this.hooks.promoted(out.promoted, dispatching.promoteLimit);
    // A cancel of this process answered while the claim was in flight: the claimed rows are checked before they begin.
    if (out.claimed.length > 0) this.hooks.claimed(out.claimed, takenAway !== this.store.rowsTakenAway?.());
    return true;
  }

  private outcomeOfStart(p: PendingStart, written: boolean): () => void {
    if (written) return p.after;
    return () => {
      this.hooks.staleRunWrite('start', p.start.id);
      p.lost();
    };
  }

  private outcomeOfFailure(f: PendingAttemptFailure, written: boolean): () => void {
    if (written) return () => f.after?.();
    return () => this.hooks.staleRunWrite('attempt', f.failure.id);
  }

  private outcomeOfFinish(f: PendingFinish, written: boolean): () => void {
    if (written) return f.after;
    return () => {
      this.hooks.staleRunWrite('end', f.run.id);
      f.lost?.();
    };
  }

  /** Each change in its own commit; a refused insert or cancel rejects its caller, the rest is kept. */
  private async isolate(now: number, changes: Changes): Promise<boolean> {
    const { inserts, cancels, starts, failures, finishes, stops, releases, retryStarts, logs } = changes;
    const empty: CommitBatch = {
      now, logs: [], insertTasks: [], cancels: [], startRuns: [], attemptFailures: [], completeRuns: [], serviceStopped: [], releases: [],
      capacities: this.capacities, dispatching: null,
    };
    let unavailable: StoreUnavailableError | null = null;
    const one = async (part: Partial<CommitBatch>): Promise<CommitOutcome | Error> => {
      if (unavailable !== null) return unavailable;
      try {
        return await this.store.commit({ ...empty, ...part });
      } catch (err) {
        if (err instanceof StoreUnavailableError) unavailable = err;
        return err instanceof Error ? err : new Error(String(err));
      }
    };
    const kept = noChanges();
    for (const l of logs) {
      const r = await one({ logs: [l.row] });
      if (r instanceof Error) {
        if (r === unavailable) kept.logs.push(l);
        else this.hooks.onError(r, `execution log of task ${l.row.taskId} (dropped: the store refuses it)`);
      } else l.entry.id = r.logIds[0]!;
    }
    for (const p of inserts) {
      const r = await one({ insertTasks: [p.task] });
      if (r instanceof Error) {
        if (r === unavailable) kept.inserts.push(p);
        else p.reject(r);
      } else {
        if (r.inserted[0]!.status === 'Pending') this.hooks.noteDue(p.task.dueAt);
        p.resolve(r.inserted[0]!);
      }
    }
    for (const c of cancels) {
      const r = await one({ cancels: [c.id] });
      if (r instanceof Error) {
        if (r === unavailable) kept.cancels.push(c);
        else c.reject(r);
      } else c.resolve(r.cancelled[0]!);
    }
    for (const p of starts) {
      const r = await one({ startRuns: [p.start] });
      if (r instanceof Error) {
        kept.starts.push(p);
        if (r !== unavailable) this.hooks.onError(r, `record start of task ${p.start.id}`);
      } else this.outcomeOfStart(p, r.started[0] === true)();
    }
    // A run whose start is kept keeps its later writes too (they name a run the row does not carry yet).
    const startKept = new Set(kept.starts.map((p) => p.start.id));
    // A refused run change is written once more with a plain error text in place of its own;
    // refused again, it is dropped and reported: one change never holds every later commit back.
    for (const f of failures) {
      if (startKept.has(f.failure.id)) {
        kept.failures.push(f);
        continue;
      }
      let r = await one({ attemptFailures: [f.failure] });
      if (r instanceof Error && r !== unavailable) {
        this.hooks.onError(r, `record failed attempt of task ${f.failure.id} (written again with a plain error text)`);
        r = await one({ attemptFailures: [{ ...f.failure, exception: refusedText(r) }] });
      }
      if (r instanceof Error) {
        if (r === unavailable) kept.failures.push(f);
        else this.hooks.onError(r, `record failed attempt of task ${f.failure.id} (dropped: the store refuses it)`);
      } else this.outcomeOfFailure(f, r.attemptsRecorded[0] !== false)();
    }
    for (const f of finishes) {
      if (startKept.has(f.run.id)) {
        kept.finishes.push(f);
        continue;
      }
      let r = await one({ completeRuns: [f.run] });
      if (r instanceof Error && r !== unavailable) {
        this.hooks.onError(r, `record finished run of task ${f.run.id} (written again with a plain error text)`);
        r = await one({ completeRuns: [{ ...f.run, exception: f.run.exception === null ? null : refusedText(r) }] });
      }
      if (r instanceof Error) {
        if (r === unavailable) kept.finishes.push(f);
        else this.hooks.onError(r, `record finished run of task ${f.run.id} (dropped: the store refuses it; recovered at the next start)`);
      } else this.outcomeOfFinish(f, r.finished[0] === true)();
    }
    for (const s of stops) {
      if (startKept.has(s.id)) {
        kept.stops.push(s);
        continue;
      }
      const r = await one({ serviceStopped: [s] });
      if (r instanceof Error) {
        if (r === unavailable) kept.stops.push(s);
        else this.hooks.onError(r, `mark task ${s.id} ServiceStopped (dropped: the store refuses it; recovered at the next start)`);
      } else if (r.stopped[0] === false) this.hooks.staleRunWrite('stop', s.id);
    }
    for (const x of releases) {
      const r = await one({ releases: [x] });
      if (r instanceof Error) {
        kept.releases.push(x);
        if (r !== unavailable) this.hooks.onError(r, `hand back reserved task ${x.id}`);
      }
    }
    for (const x of retryStarts) {
      const r = await one({ retryStarts: [x.retry] });
      if (r instanceof Error) {
        kept.retryStarts.push(x);
        if (r !== unavailable) this.hooks.onError(r, `rate window of the retry of task ${x.retry.id}`);
      } else x.answer(r.retryStarts?.[0] ?? true);
    }
    this.requeue(kept);
    if (countChanges(kept) > 0) {
      this.failed(unavailable ?? new Error('Some changes could not be written; they are kept and retried'));
      return false;
    }
    this.succeeded();
    return true;
  }

  /** Changes that could not be written go back in front of those queued since. */
  private requeue(back: Changes): void {
    const q = this.queue;
    this.queue = {
      inserts: back.inserts.concat(q.inserts),
      cancels: back.cancels.concat(q.cancels),
      starts: back.starts.concat(q.starts),
      failures: back.failures.concat(q.failures),
      finishes: back.finishes.concat(q.finishes),
      stops: back.stops.concat(q.stops),
      releases: back.releases.concat(q.releases),
      retryStarts: back.retryStarts.concat(q.retryStarts),
      logs: back.logs.concat(q.logs),
    };
    // What goes back keeps its age.
    if (this.inFlightSince !== null && this.queuedCount() > 0) {
      this.queuedSince = this.queuedSince === null ? this.inFlightSince : Math.min(this.queuedSince, this.inFlightSince);
    }
  }

  private failed(err: unknown): void {
    const first = this.lastError === null;
    this.lastError = err;
    this.retryDelay = Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, this.retryDelay * 2));
    if (first) this.hooks.writeState(err);
  }

  private succeeded(): void {
    const wasFailing = this.lastError !== null;
    this.lastError = null;
    this.retryDelay = 0;
    if (wasFailing) this.hooks.writeState(null);
  }

  private failAll(err: Error): void {
    for (const p of this.queue.inserts) p.reject(err);
    for (const c of this.queue.cancels) c.reject(err);
    this.queue = noChanges();
    this.queuedSince = null;
  }
}

/** The error text written in place of one the store refused. */
function refusedText(err: Error): string {
  return storableText(`The run's error text could not be stored (${err.message})`);
}
