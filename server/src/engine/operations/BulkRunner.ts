import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { BulkOperation, BulkStart, SvcEvent } from '../../contracts/index.js';
import type { TaskManagementStore } from '../../storage/TaskManagementStore.js';
import { buildEvent } from '../buildEvent.js';

export type { BulkStart };

export type BulkProgressListener = (progress: BulkOperation) => void;

export interface BulkRunnerDeps {
  store: TaskManagementStore;
  now(): number;
  emit(event: SvcEvent): void;
  wake(): void;
  onError(err: unknown, where: string): void;
}

/**
 * Time one batch's transaction may hold the writer (and the event loop: the SQLite driver is
 * synchronous), so that API requests and the workers get their turn between batches. A request
 * that arrives during a batch waits for the rest of it, so the budget is a few milliseconds: a
 * batch is set-based (one read, one UPDATE, one audit insert), and that still holds dozens of rows.
 */
const BATCH_BUDGET_MS = 3;
const FIRST_BATCH = 100;
/**
 * Never fewer rows: on a loaded machine a batch's wall time is mostly waiting for a CPU, and
 * shrinking batches for it would only multiply their turns (each one waits again).
 */
const MIN_BATCH = 50;
const MAX_BATCH = 5000;
/** Progress events at most this often (the last one always goes out). */
const PROGRESS_INTERVAL_MS = 200;
/** Finished operations kept for GET /management/bulk/{id}. */
const KEEP_FINISHED = 100;

/**
 * The next batch runs from a timer, not from setImmediate: the engine's group commit runs from
 * setImmediate, and two callbacks of the same phase run back to back, so a request would wait for
 * a batch and a commit together. From a timer, the poll phase (where requests are read and
 * answered) always comes between a batch and a commit.
 */
const yieldToIo = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Runs bulk actions in the background: batches sized to a few milliseconds of writer time, each
 * its own transaction, with a turn of the event loop in between (the batch size follows the
 * measured time of the previous one, growing by at most half at a time); progress kept for polling and reported to listeners (the
 * hub's BulkProgress event).
 */
export class BulkRunner {
  private readonly operations = new Map<string, BulkOperation>();
  private readonly listeners = new Set<BulkProgressListener>();
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly deps: BulkRunnerDeps) {}

  onProgress(listener: BulkProgressListener): void {
    this.listeners.add(listener);
  }

  offProgress(listener: BulkProgressListener): void {
    this.listeners.delete(listener);
  }

  get(operationId: string): BulkOperation | undefined {
    const op = this.operations.get(operationId);
    return op ? { ...op } : undefined;
  }

  /** Starts an operation; resolves at once with its first snapshot (Completed when there is nothing to do). */
  start(input: BulkStart): BulkOperation {
    const op: BulkOperation = {
      operationId: randomUUID(),
      action: input.action,
      state: 'Running',
      count: input.ids.length,
      processed: 0,
      succeeded: 0,
      skipped: 0,
      startedAtUtc: new Date(this.deps.now()).toISOString(),
      requestedBy: input.actor,
    };
    this.operations.set(op.operationId, op);
    this.forgetOld();
    if (input.ids.length === 0) {
      this.finish(op, 'Completed');
      return { ...op };
    }
    const run = this.run(op, input).finally(() => this.running.delete(run));
    this.running.add(run);
    return { ...op };
  }

  /** Resolves when every running operation has finished (engine stop, tests). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private async run(op: BulkOperation, input: BulkStart): Promise<void> {
    let size = FIRST_BATCH;
    let lastReport = 0;
    try {
      for (let i = 0; i < input.ids.length; ) {
        await yieldToIo();
        const ids = input.ids.slice(i, i + size);
        const t0 = performance.now();
        const r = await this.deps.store.applyBulkBatch({
          action: input.action,
          ids,
          now: this.deps.now(),
          actor: input.actor,
          statuses: input.statuses,
        });
        const elapsed = performance.now() - t0;
        i += ids.length;
        op.processed += ids.length;
        op.succeeded += r.succeeded;
        op.skipped += r.skipped;
        if (r.succeeded > 0) this.deps.wake();
        for (const task of r.cancelled) this.deps.emit(buildEvent('Cancelled', this.deps.now(), task, `Task cancelled (bulk, by ${input.actor})`));
        // Grows by at most half per batch: one batch that ran fast (a warm cache) must not make the next one long.
        const fits = Math.round((size * BATCH_BUDGET_MS) / Math.max(elapsed, 0.1));
        size = Math.max(MIN_BATCH, Math.min(MAX_BATCH, Math.round(size * 1.5), fits));
        const t = performance.now();
        if (i < input.ids.length && t - lastReport >= PROGRESS_INTERVAL_MS) {
          lastReport = t;
          this.report(op);
        }
      }
      this.finish(op, 'Completed');
    } catch (err) {
      op.error = (err as Error)?.message ?? String(err);
      this.deps.onError(err, `bulk ${input.action}`);
      this.finish(op, 'Failed');
    }
  }

  private finish(op: BulkOperation, state: 'Completed' | 'Failed'): void {
    op.state = state;
    op.finishedAtUtc = new Date(this.deps.now()).toISOString();
    this.report(op);
  }

  private report(op: BulkOperation): void {
    const snapshot = { ...op };
    for (const l of this.listeners) {
      try {
        l(snapshot);
      } catch (err) {
        this.deps.onError(err, 'bulk progress listener');
      }
    }
  }

  private forgetOld(): void {
    const finished = [...this.operations.values()].filter((o) => o.state !== 'Running');
    for (const o of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.operations.delete(o.operationId);
  }
}
