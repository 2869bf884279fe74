import type { SvcEvent } from '../../contracts/index.js';
import { insertOccurrences, type NewOccurrenceRow } from '../../storage/sql/schedules/insertOccurrences.js';
import { insertStatusAudits } from '../../storage/sql/schedules/insertStatusAudits.js';
import { insertStatusAudit } from '../../storage/sql/schedules/insertStatusAudit.js';
import { isScheduleRow, type ScheduleRow } from '../../storage/sql/schedules/ScheduleRow.js';
import { selectDueScheduleIds } from '../../storage/sql/schedules/selectDueScheduleIds.js';
import { selectLastRunNumber } from '../../storage/sql/schedules/selectLastRunNumber.js';
import { selectTaskById } from '../../storage/sql/schedules/selectTaskById.js';
import { setScheduleHalt, type StoredHalt } from '../../storage/sql/schedules/setScheduleHalt.js';
import { updateScheduleProgress } from '../../storage/sql/schedules/updateScheduleProgress.js';
import type { EngineInternals } from '../EngineInternals.js';
import { createSlotSource } from './createSlotSource.js';
import { ScheduleOperationError } from './ScheduleManager.js';
import { planOccurrences, type OccurrencePlan, type PlanBounds } from './MisfirePlanner.js';
import { skippedEvent } from './skippedEvent.js';
import { uuidV7 } from './uuidV7.js';
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
}

export const DEFAULT_MATERIALIZER_OPTIONS: MaterializerOptions = {
  intervalMs: 1000,
  graceMs: 5000,
  lookaheadMs: 2000,
  countBound: 100_000,
  rowsPerTransaction: 20_000,
  tickBudgetMs: 200,
};

export interface MaterializeOutcome {
  /** Occurrence rows written. */
  written: number;
  halted: boolean;
  completed: boolean;
  events: SvcEvent[];
}

const NOTHING: MaterializeOutcome = { written: 0, halted: false, completed: false, events: [] };

/** Nothing to write: no occurrence, no skip, no halt, cursor and next slot unchanged. */
function isIdle({ row, plan: p }: Planned): boolean {
  return (
    p.occurrences.length === 0 && p.skipped.length === 0 && p.halt === null && !p.exhausted &&
    p.cursor === row.cursor_at && p.nextSlot === row.scheduled_at
  );
}

interface Planned {
  row: ScheduleRow;
  def: StoredScheduleDefinition;
  plan: OccurrencePlan;
}

/**
 * DESIGN §4.3: turns each due slot of every active durable schedule into an occurrence row.
 * Each schedule is planned (pure MisfirePlanner) and written in ONE immediate transaction that
 * re-reads the cursor, so two engines on one file, or a crash mid-way, never duplicate or lose
 * a slot; the unique (parent_task_id, nominal_slot_at) index is the last guard.
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
   * 1,000); events are emitted after each commit.
   */
  tick(nowMs: number = this.internals.now()): MaterializeOutcome {
    return this.run(nowMs, this.options.tickBudgetMs);
  }

  /** Materializes every due schedule at `nowMs` without yielding (benchmarks, tools). */
  drain(nowMs: number = this.internals.now()): MaterializeOutcome {
    return this.run(nowMs, Number.POSITIVE_INFINITY);
  }

  private continuation: NodeJS.Immediate | null = null;

  private run(nowMs: number, budgetMs: number): MaterializeOutcome {
    const started = performance.now();
    const ids = selectDueScheduleIds(this.internals.db, nowMs + this.options.lookaheadMs);
    const total: MaterializeOutcome = { written: 0, halted: false, completed: false, events: [] };
    let next = 0;
    while (next < ids.length) {
      const { outcome, consumed } = this.materializeBatch(ids, next, nowMs);
      next += consumed;
      total.written += outcome.written;
      total.halted ||= outcome.halted;
      total.completed ||= outcome.completed;
      total.events.push(...outcome.events);
      if (next < ids.length && performance.now() - started >= budgetMs) {
        if (this.continuation === null && this.internals.isRunning()) {
          this.continuation = setImmediate(() => {
            this.continuation = null;
            if (this.internals.isRunning()) this.tick(this.internals.now());
          });
        }
        break;
      }
    }
    return total;
  }

  /** Plans and writes schedules ids[from…] in one immediate transaction, up to the row budget. */
  private materializeBatch(ids: readonly string[], from: number, nowMs: number): { outcome: MaterializeOutcome; consumed: number } {
    const { db } = this.internals;
    const outcome: MaterializeOutcome = { written: 0, halted: false, completed: false, events: [] };
    let consumed = 0;
    db.transaction(() => {
      const sink: NewOccurrenceRow[] = [];
      for (let i = from; i < ids.length; i++) {
        consumed++;
        const row = selectTaskById(db, ids[i]!);
        if (!row || !isScheduleRow(row) || row.status !== 'Pending' || row.halt !== null) continue;
        let planned: Planned;
        try {
          planned = this.planFor(row, nowMs);
        } catch (err) {
          // A schedule that cannot be evaluated must not stop the others; it stays as it is.
          if (err instanceof ScheduleOperationError) continue;
          throw err;
        }
        if (isIdle(planned)) continue;
        const one = this.write(planned, nowMs, sink);
        outcome.halted ||= one.halted;
        outcome.completed ||= one.completed;
        outcome.events.push(...one.events);
        if (sink.length >= this.options.rowsPerTransaction) break;
      }
      outcome.written = this.flushOccurrences(sink, nowMs);
    }).immediate();
    for (const e of outcome.events) this.internals.emit(e);
    if (outcome.written > 0) this.internals.wake();
    return { outcome, consumed };
  }

  private planFor(row: ScheduleRow, nowMs: number): Planned {
    const def = parseStoredDefinition(row.schedule_definition!);
    const source = createSlotSource(def);
    const lastRun = selectLastRunNumber(this.internals.db, row.id);
    const plan = planOccurrences({
      source,
      misfire: def.misfire,
      cursor: row.cursor_at!,
      now: nowMs,
      bounds: this.options,
      nextRunNumber: lastRun + 1,
      remainingRuns: def.maxRuns === null ? Number.POSITIVE_INFINITY : Math.max(0, def.maxRuns - lastRun),
    });
    return { row, def, plan };
  }

  /**
   * Plans and writes one schedule at `nowMs`. Throws ScheduleOperationError 'Unavailable' when
   * its definition cannot be evaluated (nothing written).
   */
  materializeSchedule(id: string, nowMs: number): MaterializeOutcome {
    const { db } = this.internals;
    const first = selectTaskById(db, id);
    if (!first || !isScheduleRow(first) || first.status !== 'Pending' || first.halt !== null) return NOTHING;
    const planned = this.planFor(first, nowMs);
    if (isIdle(planned)) return NOTHING;
    const outcome = db
      .transaction((): MaterializeOutcome => {
        const fresh = selectTaskById(db, id);
        if (!fresh || fresh.status !== 'Pending' || fresh.halt !== null) return NOTHING;
        const current =
          fresh.cursor_at === first.cursor_at && fresh.schedule_version === first.schedule_version ? planned : this.planFor(fresh, nowMs);
        const sink: NewOccurrenceRow[] = [];
        const one = this.write(current, nowMs, sink);
        return { ...one, written: this.flushOccurrences(sink, nowMs) };
      })
      .immediate();
    for (const e of outcome.events) this.internals.emit(e);
    if (outcome.written > 0) this.internals.wake();
    return outcome;
  }

  /**
   * Applies a plan inside the caller's transaction: halt, or cursor/status of the schedule row;
   * its occurrence rows are appended to `sink` for flushOccurrences (same transaction).
   */
  private write({ row, def, plan }: Planned, nowMs: number, sink: NewOccurrenceRow[]): MaterializeOutcome {
    const { db } = this.internals;
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
      setScheduleHalt(db, row.id, halt, plan.nextSlot);
      return { written: 0, halted: true, completed: false, events: [] };
    }
    const handler = this.internals.handlerNameOf(row.type) ?? row.handler;
    for (const o of plan.occurrences) sink.push({
      id: '',
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
    });
    const status = plan.exhausted ? 'Completed' : 'Pending';
    updateScheduleProgress(db, row.id, plan.cursor, plan.exhausted ? null : plan.nextSlot, status);
    if (plan.exhausted) insertStatusAudit(db, row.id, row.audit_level, 'Completed', nowMs);
    const eventSource = {
      scheduleId: row.id,
      taskKey: row.task_key,
      type: row.type,
      handler: row.handler,
      queue: row.queue,
      scheduleVersion: version,
    };
    return {
      written: 0,
      halted: false,
      completed: plan.exhausted,
      events: plan.skipped.map((s) => skippedEvent(eventSource, s, nowMs)),
    };
  }

  /**
   * Inserts the collected occurrences in slot order (ids assigned in that order), so that the
   * slot-ordered and id-ordered indexes are appended to rather than revisited once per schedule,
   * with one 'Pending' audit per written row. Returns the rows written.
   */
  private flushOccurrences(sink: NewOccurrenceRow[], nowMs: number): number {
    if (sink.length === 0) return 0;
    const { db } = this.internals;
    sink.sort((a, b) => a.nominalSlotAt - b.nominalSlotAt);
    const levelOf = new Map<string, NewOccurrenceRow['auditLevel']>();
    for (const r of sink) {
      r.id = uuidV7();
      levelOf.set(r.id, r.auditLevel);
    }
    const writtenIds = insertOccurrences(db, sink);
    const byLevel = new Map<NewOccurrenceRow['auditLevel'], string[]>();
    for (const id of writtenIds) {
      const level = levelOf.get(id)!;
      let ids = byLevel.get(level);
      if (!ids) byLevel.set(level, (ids = []));
      ids.push(id);
    }
    for (const [level, ids] of byLevel) insertStatusAudits(db, ids, level, 'Pending', nowMs);
    return writtenIds.length;
  }
}
