import type { ResumeOutlook, ScheduleDefinitionView } from '../../contracts/index.js';
import { createSlotSource } from '../../engine/schedules/createSlotSource.js';
import { planOccurrences } from '../../engine/schedules/MisfirePlanner.js';
import { DEFAULT_MATERIALIZER_OPTIONS } from '../../engine/schedules/OccurrenceMaterializer.js';

const ms = (iso: string | undefined): number | null => (iso === undefined ? null : Date.parse(iso));

/**
 * What POST resume would do now for a halted schedule: the engine's own (pure) slot source and
 * misfire planner run against the stored definition and the halt cursor, nothing written.
 * Undefined when the definition cannot be evaluated.
 */
export function resumeOutlook(def: ScheduleDefinitionView, cursorIso: string | undefined, nowMs: number): ResumeOutlook | undefined {
  const cursor = ms(cursorIso);
  if (cursor === null || Number.isNaN(cursor)) return undefined;
  const bounds = {
    graceMs: DEFAULT_MATERIALIZER_OPTIONS.graceMs,
    lookaheadMs: DEFAULT_MATERIALIZER_OPTIONS.lookaheadMs,
    countBound: DEFAULT_MATERIALIZER_OPTIONS.countBound,
  };
  let source;
  try {
    source = createSlotSource({
      type: '',
      request: '',
      queue: null,
      auditLevel: null,
      cron: def.cron ?? null,
      everyMs: def.everyMs ?? null,
      anchorMs: ms(def.anchorUtc),
      timeZone: def.timeZone,
      misfire: { policy: def.misfirePolicy, windowMs: def.misfireWindowMs, overflowCap: def.overflowCap },
      startAtMs: ms(def.startAtUtc),
      untilMs: ms(def.untilUtc),
      maxRuns: def.maxRuns ?? null,
    });
  } catch {
    return undefined;
  }
  const misfire = { policy: def.misfirePolicy, windowMs: def.misfireWindowMs, overflowCap: def.overflowCap };
  const plan = planOccurrences({ source, misfire, cursor, now: nowMs, bounds, nextRunNumber: 1, remainingRuns: Number.POSITIVE_INFINITY });
  const all = source.count(cursor, nowMs - bounds.graceMs - 1, bounds.countBound);
  const windowStart = Math.max(cursor, nowMs - def.misfireWindowMs - 1);
  const inWindow = source.count(windowStart, nowMs - bounds.graceMs - 1, bounds.countBound);
  const outlook: ResumeOutlook = {
    missedSlots: all.count,
    missedSlotsIsExact: all.exact,
    slotsInWindow: inWindow.count,
    slotsInWindowIsExact: inWindow.exact,
    behindSeconds: Math.max(0, Math.floor((nowMs - cursor) / 1000)),
    outcome: plan.halt ? 'HaltsAgain' : 'Replays',
    replayCount: plan.occurrences.filter((o) => o.misfireKind === 'CatchUp').length,
    skipCount: plan.skipped.reduce((n, s) => n + s.count, 0),
  };
  if (def.misfirePolicy === 'ReplayAll' && inWindow.exact) outlook.capNeeded = inWindow.count;
  return outlook;
}
