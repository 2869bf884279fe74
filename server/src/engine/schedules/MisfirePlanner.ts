import type { MisfireKind, MisfirePolicy, SkipReason } from '../../contracts/index.js';
import type { SlotSource } from './SlotSource.js';

/**
 * How missed slots are planned: those outside the misfire window are dropped; the rest become
 * CatchUp occurrences by policy (ReplayAll, SkipOldest, Collapse, Skip), halting over the cap
 * under ReplayAll.
 */
export interface MisfireSettings {
  policy: MisfirePolicy;
  /** Slots older than now − windowMs are dropped (OutsideMisfireWindow). */
  windowMs: number;
  overflowCap: number;
}

export interface PlanBounds {
  /** A slot older than now − graceMs is missed work (CatchUp); younger ones are OnTime. */
  graceMs: number;
  /** OnTime occurrences are written up to now + lookaheadMs, ahead of their slot. */
  lookaheadMs: number;
  /** Cron counting stops here (missedCountIsExact=false / halt isExact=false beyond it). */
  countBound: number;
}

export interface PlanInput {
  source: SlotSource;
  misfire: MisfireSettings;
  /** Last slot accounted for. */
  cursor: number;
  now: number;
  bounds: PlanBounds;
  /** runNumber of the next occurrence (1 for a new series). */
  nextRunNumber: number;
  /** Occurrences the series may still write (Infinity without maxRuns). */
  remainingRuns: number;
}

export interface CollapsedSlots {
  fromMs: number;
  throughMs: number;
  count: number;
  exact: boolean;
}

export interface PlannedOccurrence {
  slot: number;
  runNumber: number;
  misfireKind: MisfireKind;
  /** scheduledExecutionUtc: the slot (OnTime) or now (CatchUp). */
  dueAt: number;
  collapse?: CollapsedSlots;
}

export interface SkippedSlots {
  reason: SkipReason;
  count: number;
  /** False when counting stopped at the bound: at least `count` slots were dropped. */
  exact: boolean;
  firstSlot: number;
  lastSlot: number;
}

export interface HaltDetection {
  detectedAtLeast: number;
  isExact: boolean;
}

export interface OccurrencePlan {
  occurrences: PlannedOccurrence[];
  /** At most one aggregate per reason. */
  skipped: SkippedSlots[];
  /** ReplayAll over the cap: nothing else is planned and the cursor stays. */
  halt: HaltDetection | null;
  cursor: number;
  /** First slot after the new cursor (null: the series never fires again). */
  nextSlot: number | null;
  /** The series is over (maxRuns spent, past `until`, or the pattern never fires again). */
  exhausted: boolean;
}

function firstOf(it: Iterable<number>): number | null {
  for (const v of it) return v;
  return null;
}

function take(it: Iterable<number>, n: number): number[] {
  const out: number[] = [];
  if (n <= 0) return out;
  for (const v of it) {
    out.push(v);
    if (out.length >= n) break;
  }
  return out;
}

/** Aggregate of the slots in (afterExcl, toIncl], or null when there are none. */
function aggregate(source: SlotSource, reason: SkipReason, afterExcl: number, toIncl: number, bound: number): SkippedSlots | null {
  if (toIncl <= afterExcl) return null;
  const { count, exact } = source.count(afterExcl, toIncl, bound);
  if (count === 0) return null;
  const firstSlot = source.firstAfter(afterExcl)!;
  const lastSlot = firstOf(source.backward(toIncl, afterExcl))!;
  return { reason, count, exact, firstSlot, lastSlot };
}

/**
 * The misfire planner (pure): which occurrences to write, which slots to drop, or a halt.
 * Ranges are half-open (after, to] in integer milliseconds.
 */
export function planOccurrences(input: PlanInput): OccurrencePlan {
  const { source, misfire, cursor, now, bounds } = input;
  const end = now + bounds.lookaheadMs;
  const outsideEnd = Math.min(now - misfire.windowMs - 1, end);
  const missedStart = Math.max(cursor, now - misfire.windowMs - 1);
  const missedEnd = Math.min(now - bounds.graceMs - 1, end);
  const onTimeStart = Math.max(missedStart, missedEnd);

  // ReplayAll halts before anything else is decided: the backlog stays for resume.
  const missed = missedEnd > missedStart ? source.count(missedStart, missedEnd, bounds.countBound) : { count: 0, exact: true };
  if (misfire.policy === 'ReplayAll' && (missed.count > misfire.overflowCap || !missed.exact)) {
    return {
      occurrences: [],
      skipped: [],
      halt: { detectedAtLeast: missed.count, isExact: missed.exact },
      cursor,
      nextSlot: source.firstAfter(cursor),
      exhausted: false,
    };
  }

  const skipped: SkippedSlots[] = [];
  let lastAccounted = cursor;
  const outside = aggregate(source, 'OutsideMisfireWindow', cursor, outsideEnd, bounds.countBound);
  if (outside) {
    skipped.push(outside);
    lastAccounted = outside.lastSlot;
  }

  const catchUp: Array<{ slot: number; collapse?: CollapsedSlots }> = [];
  if (missed.count > 0) {
    const newest = firstOf(source.backward(missedEnd, missedStart))!;
    lastAccounted = newest;
    switch (misfire.policy) {
      case 'ReplayAll':
        for (const slot of source.forward(missedStart, missedEnd)) catchUp.push({ slot });
        break;
      case 'SkipOldest': {
        if (missed.exact && missed.count <= misfire.overflowCap) {
          for (const slot of source.forward(missedStart, missedEnd)) catchUp.push({ slot });
        } else {
          const kept = take(source.backward(missedEnd, missedStart), misfire.overflowCap).reverse();
          const droppedTo = kept.length > 0 ? kept[0]! - 1 : missedEnd;
          const dropped = aggregate(source, 'OverflowCap', missedStart, droppedTo, bounds.countBound);
          if (dropped) skipped.push(dropped);
          for (const slot of kept) catchUp.push({ slot });
        }
        break;
      }
      case 'Collapse':
        catchUp.push({
          slot: newest,
          collapse: { fromMs: source.firstAfter(missedStart)!, throughMs: newest, count: missed.count, exact: missed.exact },
        });
        break;
      case 'Skip': {
        const notCurrent = aggregate(source, 'NotCurrent', missedStart, newest - 1, bounds.countBound);
        if (notCurrent) skipped.push(notCurrent);
        catchUp.push({ slot: newest });
        break;
      }
    }
  }

  const occurrences: PlannedOccurrence[] = [];
  let runNumber = input.nextRunNumber;
  let exhausted = false;
  const addOccurrence = (slot: number, misfireKind: MisfireKind, collapse?: CollapsedSlots): boolean => {
    if (occurrences.length >= input.remainingRuns) {
      exhausted = true;
      return false;
    }
    const o: PlannedOccurrence = { slot, runNumber: runNumber++, misfireKind, dueAt: misfireKind === 'OnTime' ? slot : now };
    if (collapse) o.collapse = collapse;
    occurrences.push(o);
    lastAccounted = slot;
    return true;
  };
  for (const c of catchUp) if (!addOccurrence(c.slot, 'CatchUp', c.collapse)) break;
  if (!exhausted) {
    for (const slot of source.forward(onTimeStart, end)) if (!addOccurrence(slot, 'OnTime')) break;
  }
  if (occurrences.length >= input.remainingRuns) exhausted = true;

  const nextSlot = exhausted ? null : source.firstAfter(lastAccounted);
  return { occurrences, skipped, halt: null, cursor: lastAccounted, nextSlot, exhausted: exhausted || nextSlot === null };
}
