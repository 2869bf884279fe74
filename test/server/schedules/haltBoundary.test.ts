// @backends sqlite — never reaches a store.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CronSlotSource } from '../../../server/src/engine/schedules/CronSlotSource.js';
import { IntervalSlotSource } from '../../../server/src/engine/schedules/IntervalSlotSource.js';
import { planOccurrences } from '../../../server/src/engine/schedules/MisfirePlanner.js';
import type { SlotSource } from '../../../server/src/engine/schedules/SlotSource.js';

// The cap rules of the misfire planner on their boundaries, as properties with an independent
// oracle: `missed` slots are laid out on purpose, so the expected answer is known exactly.
//   ReplayAll halts  ⇔  missed > overflowCap, or the count stopped at the bound (inexact).
//   SkipOldest keeps the newest min(missed, cap) and drops the rest (OverflowCap).

const MINUTE = 60_000;
const GRACE = 5_000;
const BASE = Date.parse('2026-05-04T08:00:00.000Z'); // a whole minute: a slot of both sources

/**
 * A planning input with exactly `missed` slots between the cursor (a slot) and now − grace,
 * and no OnTime slot (the next slot is after now + lookahead).
 */
function scenario(source: SlotSource, missed: number, overflowCap: number, countBound: number, policy: 'ReplayAll' | 'SkipOldest') {
  const now = BASE + missed * MINUTE + 30_000;
  return planOccurrences({
    source,
    misfire: { policy, windowMs: 365 * 86_400_000, overflowCap },
    cursor: BASE,
    now,
    bounds: { graceMs: GRACE, lookaheadMs: 2_000, countBound },
    nextRunNumber: 1,
    remainingRuns: Number.POSITIVE_INFINITY,
  });
}

const cron = () => new CronSlotSource('* * * * *', 'UTC');
const interval = () => new IntervalSlotSource(BASE, MINUTE);

describe('halt ⇔ missed > overflowCap or an inexact count', () => {
  it('ReplayAll on a cron schedule (counted by enumeration, stops at the bound)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 45 }), (missed, cap, bound) => {
        const plan = scenario(cron(), missed, cap, bound, 'ReplayAll');
        const exact = missed <= bound;
        const shouldHalt = missed > cap || !exact;
        expect(plan.halt !== null).toBe(shouldHalt);
        if (shouldHalt) {
          expect(plan.halt).toEqual({ detectedAtLeast: Math.min(missed, bound), isExact: exact });
          expect(plan.occurrences).toEqual([]);
          expect(plan.cursor).toBe(BASE);
        } else {
          expect(plan.occurrences.map((o) => o.slot)).toEqual(Array.from({ length: missed }, (_, i) => BASE + (i + 1) * MINUTE));
          expect(plan.occurrences.every((o) => o.misfireKind === 'CatchUp')).toBe(true);
        }
      }),
      { numRuns: 400, examples: [[10, 10, 45], [11, 10, 45], [10, 20, 10], [11, 20, 10], [0, 0, 1]] },
    );
  });

  it('ReplayAll on an interval schedule (counted arithmetically, always exact)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 }), (missed, cap) => {
        const plan = scenario(interval(), missed, cap, 1, 'ReplayAll');
        expect(plan.halt !== null).toBe(missed > cap);
        if (plan.halt) expect(plan.halt).toEqual({ detectedAtLeast: missed, isExact: true });
        else expect(plan.occurrences).toHaveLength(missed);
      }),
      { numRuns: 300, examples: [[7, 7], [8, 7]] },
    );
  });

  it('equal to the cap: no halt, every slot replayed; one more: halt', () => {
    for (const cap of [0, 1, 5, 100]) {
      expect(scenario(cron(), cap, cap, 100_000, 'ReplayAll')).toMatchObject({ halt: null });
      expect(scenario(cron(), cap, cap, 100_000, 'ReplayAll').occurrences).toHaveLength(cap);
      expect(scenario(cron(), cap + 1, cap, 100_000, 'ReplayAll').halt).toEqual({ detectedAtLeast: cap + 1, isExact: true });
    }
  });

  it('SkipOldest keeps the newest min(missed, cap) slots and reports the others as OverflowCap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 }), (missed, cap) => {
        const plan = scenario(cron(), missed, cap, 100_000, 'SkipOldest');
        const kept = Math.min(missed, cap);
        expect(plan.halt).toBeNull();
        expect(plan.occurrences.map((o) => o.slot)).toEqual(Array.from({ length: kept }, (_, i) => BASE + (missed - kept + i + 1) * MINUTE));
        const dropped = plan.skipped.filter((s) => s.reason === 'OverflowCap');
        if (missed > cap) {
          expect(dropped).toEqual([{ reason: 'OverflowCap', count: missed - cap, exact: true, firstSlot: BASE + MINUTE, lastSlot: BASE + (missed - cap) * MINUTE }]);
        } else {
          expect(dropped).toEqual([]);
        }
      }),
      { numRuns: 300, examples: [[6, 6], [7, 6]] },
    );
  });
});
