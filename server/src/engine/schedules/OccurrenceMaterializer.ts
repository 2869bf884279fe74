import { randomUUID } from 'node:crypto';
import type { SvcEvent } from '../../contracts/index.js';
import { insertOccurrence } from '../../storage/sql/schedules/insertOccurrence.js';
import { insertStatusAudit } from '../../storage/sql/schedules/insertStatusAudit.js';
import { isScheduleRow, type ScheduleRow } from '../../storage/sql/schedules/ScheduleRow.js';
import { selectDueScheduleIds } from '../../storage/sql/schedules/selectDueScheduleIds.js';
import { selectLastRunNumber } from '../../storage/sql/schedules/selectLastRunNumber.js';
import { selectTaskById } from '../../storage/sql/schedules/selectTaskById.js';
import { setScheduleHalt, type StoredHalt } from '../../storage/sql/schedules/setScheduleHalt.js';
import { updateScheduleProgress } from '../../storage/sql/schedules/updateScheduleProgress.js';
import type { EngineInternals } from '../EngineInternals.js';
import { createSlotSource } from './createSlotSource.js';
import { planOccurrences, type OccurrencePlan, type PlanBounds } from './MisfirePlanner.js';
import { skippedEvent } from './skippedEvent.js';
import { parseStoredDefinition, type StoredScheduleDefinition } from './StoredScheduleDefinition.js';

export interface MaterializerOptions extends PlanBounds {
  /** Ticker period. */
  intervalMs: number;
}

export const DEFAULT_MATERIALIZER_OPTIONS: MaterializerOptions = {
  intervalMs: 1000,
  graceMs: 5000,
  lookaheadMs: 2000,
  countBound: 100_000,
};

export interface MaterializeOutcome {
  /** Occurrence rows written. */
  written: number;
  halted: boolean;
  completed: boolean;
  events: SvcEvent[];
}

const NOTHING: MaterializeOutcome = { written: 0, halted: false, completed: false, events: [] };

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

  /** One pass over every due schedule. Events are emitted after each schedule's commit. */
  tick(nowMs: number = this.internals.now()): MaterializeOutcome {
    const ids = selectDueScheduleIds(this.internals.db, nowMs + this.options.lookaheadMs);
    const total: MaterializeOutcome = { written: 0, halted: false, completed: false, events: [] };
    for (const id of ids) {
      let outcome: MaterializeOutcome;
      try {
        outcome = this.materializeSchedule(id, nowMs);
      } catch (err) {
        // A schedule that cannot be evaluated must not stop the others; it stays as it is.
        if ((err as { name?: string }).name === 'ScheduleOperationError') continue;
        throw err;
      }
      total.written += outcome.written;
      total.halted ||= outcome.halted;
      total.completed ||= outcome.completed;
      total.events.push(...outcome.events);
    }
    return total;
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
    const p = planned.plan;
    if (
      p.occurrences.length === 0 && p.skipped.length === 0 && p.halt === null && !p.exhausted &&
      p.cursor === first.cursor_at && p.nextSlot === first.scheduled_at
    ) {
      return NOTHING;
    }
    const outcome = db
      .transaction((): MaterializeOutcome => {
        const fresh = selectTaskById(db, id);
        if (!fresh || fresh.status !== 'Pending' || fresh.halt !== null) return NOTHING;
        const current =
          fresh.cursor_at === first.cursor_at && fresh.schedule_version === first.schedule_version ? planned : this.planFor(fresh, nowMs);
        return this.write(current, nowMs);
      })
      .immediate();
    for (const e of outcome.events) this.internals.emit(e);
    if (outcome.written > 0) this.internals.wake();
    return outcome;
  }

  private write({ row, def, plan }: Planned, nowMs: number): MaterializeOutcome {
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
    let written = 0;
    for (const o of plan.occurrences) {
      const occurrenceId = randomUUID();
      const inserted = insertOccurrence(db, {
        id: occurrenceId,
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
      if (inserted) {
        insertStatusAudit(db, occurrenceId, row.audit_level, 'Pending', nowMs);
        written++;
      }
    }
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
      written,
      halted: false,
      completed: plan.exhausted,
      events: plan.skipped.map((s) => skippedEvent(eventSource, s, nowMs)),
    };
  }
}
