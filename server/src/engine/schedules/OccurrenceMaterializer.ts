import type { SvcEvent } from '../../contracts/index.js';
import type { NewOccurrence, ScheduleRow, ScheduleWrite, StoredHalt } from '../../storage/EngineStore.js';
import type { EngineInternals } from '../EngineInternals.js';
import { createSlotSource } from './createSlotSource.js';
import { ScheduleOperationError } from './ScheduleManager.js';
import { planOccurrences, type OccurrencePlan, type PlanBounds } from './MisfirePlanner.js';
import { skippedEvent } from './skippedEvent.js';
import { uuidV7 } from '../uuidV7.js';
import { parseStoredDefinition, type StoredScheduleDefinition } from './StoredScheduleDefinition.js';

export interface MaterializerOptions extends PlanBounds {
  /** Ticker period. */
  intervalMs: number;
  /** Occurrence rows per write transaction before the next schedules get a new one. */
  rowsPerTransaction: number;
  /**
   * A tick that has run this long yields to the event loop (workers keep running) and goes on
   * with the remaining due schedules in a setImmediate continuation.
   */
  tickBudgetMs: number;
  /**
   * A write transaction with at least this many occurrences of missed work (misfire kind
   * CatchUp: a catch-up) writes its occurrences in the store's compact form where it has one
   * (SQLite): a small row each, a task row when due. On-time slots alone never do.
   */
  compactFrom: number;
  /**
   * Write transactions a pass runs at once, over disjoint schedules (each takes the next due
   * schedule from one shared queue); null: as many as the store advises
   * (`ScheduleStore.materializeConcurrency`: PostgreSQL 2, SQLite 1).
   */
  concurrency: number | null;
}

export const DEFAULT_MATERIALIZER_OPTIONS: MaterializerOptions = {
  intervalMs: 1000,
  graceMs: 5000,
  lookaheadMs: 2000,
  countBound: 100_000,
  rowsPerTransaction: 20_000,
  tickBudgetMs: 200,
  compactFrom: 1000,
  concurrency: null,
};

export interface MaterializeOutcome {
  /** Occurrence rows written. */
  written: number;
  halted: boolean;
  completed: boolean;
  events: SvcEvent[];
}


/** Nothing to write: no occurrence, no skip, no halt, cursor and next slot unchanged. */
function isIdle(row: ScheduleRow, p: OccurrencePlan): boolean {
  return (
    p.occurrences.length === 0 && p.skipped.length === 0 && p.halt === null && !p.exhausted &&
    p.cursor === row.cursor_at && p.nextSlot === row.scheduled_at
  );
}

/** What one applied plan reports after commit. */
interface PlanNote {
  halted: boolean;
  completed: boolean;
  events: SvcEvent[];
}

/**
 * Turns each due slot of every active durable schedule into an occurrence row. Each schedule
 * is planned (pure MisfirePlanner) inside the store's transaction, which re-reads the cursor,
 * so two engines on one file, or a crash mid-way, never duplicate or lose a slot; the unique
 * (schedule, slot) index is the last guard.
 */
export class OccurrenceMaterializer {
  readonly options: MaterializerOptions;

  constructor(
    private readonly internals: EngineInternals,
    options: Partial<MaterializerOptions> = {},
  ) {
    this.options = { ...DEFAULT_MATERIALIZER_OPTIONS, ...options };
  }

  /**
   * One pass over every due schedule. Schedules are written in transactions of up to
   * `rowsPerTransaction` occurrences (a catch-up of 1,000 schedules is then ~100 commits, not
   * 1,000), `concurrency` of them at once; events are emitted after each commit.
   */
  tick(nowMs: number = this.internals.now()): Promise<MaterializeOutcome> {
    return this.run(nowMs, this.options.tickBudgetMs);
  }

  /** Materializes every due schedule at `nowMs` without yielding (benchmarks, tools). */
  drain(nowMs: number = this.internals.now()): Promise<MaterializeOutcome> {
    return this.run(nowMs, Number.POSITIVE_INFINITY);
  }

  private continuation: NodeJS.Immediate | null = null;

  private async run(nowMs: number, budgetMs: number): Promise<MaterializeOutcome> {
    const started = performance.now();
    const ids = await this.internals.store.schedules.dueScheduleIds(nowMs + this.options.lookaheadMs);
    const total: MaterializeOutcome = { written: 0, halted: false, completed: false, events: [] };
    let next = 0;
    // Once the budget is spent (or a transaction failed), no transaction takes another schedule.
    let stopped = false;
    const nextId = () => (stopped || next >= ids.length ? undefined : ids[next++]);
    // A lane takes its transaction's first schedule before it opens the transaction: two lanes
    // that both saw one schedule left would otherwise both open one, and one would write nothing.
    const lane = async () => {
      for (let first = nextId(); first !== undefined; first = nextId()) {
        let taken = false;
        const thenNext = () => {
          if (taken) return nextId();
          taken = true;
          return first;
        };
        try {
          const outcome = await this.materializeBatch(thenNext, nowMs);
          total.written += outcome.written;
          total.halted ||= outcome.halted;
          total.completed ||= outcome.completed;
          total.events.push(...outcome.events);
        } catch (err) {
          stopped = true;
          throw err;
        }
        if (performance.now() - started >= budgetMs) stopped = true;
      }
    };
    const lanes = Math.max(1, Math.min(ids.length, this.options.concurrency ?? this.internals.store.schedules.materializeConcurrency ?? 1));
    const settled = await Promise.allSettled(Array.from({ length: lanes }, lane));
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    if (next < ids.length && this.continuation === null && this.internals.isRunning()) {
      this.continuation = setImmediate(() => {
        this.continuation = null;
        if (this.internals.isRunning()) void this.tick(this.internals.now()).catch((err) => this.internals.reportError(err, 'materializer'));
      });
    }
    return total;
  }

  /** Plans and writes, in one transaction, the schedules it takes from `nextId`, up to the row budget. */
  private async materializeBatch(nextId: () => string | undefined, nowMs: number): Promise<MaterializeOutcome> {
    const result = await this.internals.store.schedules.materialize<PlanNote>({
      nextId,
      now: nowMs,
      rowsPerTransaction: this.options.rowsPerTransaction,
      compactFrom: this.options.compactFrom,
      newId: uuidV7,
      plan: (row, lastRun) => {
        let planned: { def: StoredScheduleDefinition; plan: OccurrencePlan };
        try {
          planned = this.planFor(row, lastRun, nowMs);
        } catch (err) {
          // A schedule that cannot be evaluated must not stop the others; it stays as it is.
          if (err instanceof ScheduleOperationError) return null;
          throw err;
        }
        if (isIdle(row, planned.plan)) return null;
        return this.write(row, planned.def, planned.plan, nowMs);
      },
    });
    const outcome: MaterializeOutcome = { written: result.written, halted: false, completed: false, events: [] };
    for (const n of result.notes) {
      outcome.halted ||= n.halted;
      outcome.completed ||= n.completed;
      outcome.events.push(...n.events);
    }
    for (const e of outcome.events) this.internals.emit(e);
    if (outcome.written > 0) this.internals.wake();
    return outcome;
  }

  private planFor(row: ScheduleRow, lastRun: number, nowMs: number): { def: StoredScheduleDefinition; plan: OccurrencePlan } {
    const def = parseStoredDefinition(row.schedule_definition!);
    const source = createSlotSource(def);
    const plan = planOccurrences({
      source,
      misfire: def.misfire,
      cursor: row.cursor_at!,
      now: nowMs,
      bounds: this.options,
      nextRunNumber: lastRun + 1,
      remainingRuns: def.maxRuns === null ? Number.POSITIVE_INFINITY : Math.max(0, def.maxRuns - lastRun),
    });
    return { def, plan };
  }

  /**
   * Plans and writes one schedule at `nowMs` (re-read inside the transaction). A definition that
   * cannot be evaluated rejects with ScheduleOperationError 'Unavailable' (nothing written).
   */
  async materializeSchedule(id: string, nowMs: number): Promise<MaterializeOutcome> {
    let unavailable: unknown;
    const ids = [id];
    const result = await this.internals.store.schedules.materialize<PlanNote>({
      nextId: () => ids.pop(),
      now: nowMs,
      rowsPerTransaction: Number.MAX_SAFE_INTEGER,
      compactFrom: this.options.compactFrom,
      newId: uuidV7,
      plan: (row, lastRun) => {
        unavailable = undefined;
        let planned: { def: StoredScheduleDefinition; plan: OccurrencePlan };
        try {
          planned = this.planFor(row, lastRun, nowMs);
        } catch (err) {
          if (err instanceof ScheduleOperationError) {
            unavailable = err;
            return null;
          }
          throw err;
        }
        if (isIdle(row, planned.plan)) return null;
        return this.write(row, planned.def, planned.plan, nowMs);
      },
    });
    if (unavailable !== undefined) throw unavailable;
    const outcome: MaterializeOutcome = { written: result.written, halted: false, completed: false, events: [] };
    for (const n of result.notes) {
      outcome.halted ||= n.halted;
      outcome.completed ||= n.completed;
      outcome.events.push(...n.events);
    }
    for (const e of outcome.events) this.internals.emit(e);
    if (outcome.written > 0) this.internals.wake();
    return outcome;
  }

  /** Turns a plan into the store's write description and the note reported after commit. */
  private write(row: ScheduleRow, def: StoredScheduleDefinition, plan: OccurrencePlan, nowMs: number): { write: ScheduleWrite; note: PlanNote } {
    const version = row.schedule_version!;
    if (plan.halt) {
      const halt: StoredHalt = {
        atUtc: new Date(nowMs).toISOString(),
        reason: 'OverflowCapExceeded',
        detectedAtLeast: plan.halt.detectedAtLeast,
        isExact: plan.halt.isExact,
        cursorUtc: new Date(row.cursor_at!).toISOString(),
        scheduleVersion: version,
      };
      return { write: { kind: 'halt', halt, nextSlotAt: plan.nextSlot }, note: { halted: true, completed: false, events: [] } };
    }
    const handler = this.internals.handlerNameOf(row.type) ?? row.handler;
    const occurrences: NewOccurrence[] = plan.occurrences.map((o) => ({
      type: row.type,
      handler,
      request: row.request,
      queue: row.queue,
      auditLevel: row.audit_level,
      createdAt: nowMs,
      scheduledAt: o.dueAt,
      timeZoneId: def.timeZone,
      scheduleVersion: version,
      parentTaskId: row.id,
      nominalSlotAt: o.slot,
      runNumber: o.runNumber,
      misfireKind: o.misfireKind,
      missedFrom: o.collapse?.fromMs ?? null,
      missedThrough: o.collapse?.throughMs ?? null,
      missedCount: o.collapse?.count ?? null,
      missedCountIsExact: o.collapse ? (o.collapse.exact ? 1 : 0) : null,
      traceparent: row.traceparent ?? null,
      tracestate: row.tracestate ?? null,
    }));
    const eventSource = {
      scheduleId: row.id,
      taskKey: row.task_key,
      type: row.type,
      handler: row.handler,
      queue: row.queue,
      scheduleVersion: version,
    };
    return {
      write: { kind: 'progress', occurrences, cursorAt: plan.cursor, nextSlotAt: plan.nextSlot, completed: plan.exhausted },
      note: { halted: false, completed: plan.exhausted, events: plan.skipped.map((sk) => skippedEvent(eventSource, sk, nowMs)) },
    };
  }
}
