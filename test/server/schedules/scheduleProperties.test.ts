import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MisfirePolicy, SvcEvent } from '../../../server/src/contracts/index.js';
import { BACKEND } from '../../fixtures/server/storeUnderTest.js';
import { cronSlotsByBruteForce } from '../../fixtures/server/slotOracle.js';
import { occurrencesOf, openScheduleHarness, scheduleRow, type ScheduleHarness } from '../../fixtures/server/scheduleHarness.js';

const GRACE = 5000;
const LOOKAHEAD = 2000;
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** Time for random scenarios; the one running at its end still finishes (the test's limit adds 30 s). */
const PROPERTY_BUDGET_MS = 20_000;

const zoneArb = fc.constantFrom('UTC', 'Europe/Rome', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata');
const cronArb = fc
  .tuple(
    fc.constantFrom('*/5', '*/15', '0', '30', '0,20,40', '7-10', '*/7'),
    fc.constantFrom('*', '*/2', '1,2,3', '2', '0-5', '*/6', '1'),
    fc.constantFrom('*', '1-5', '0,6'),
  )
  .map(([m, h, dow]) => ({ cron: `${m} ${h} * * ${dow}` }));
const everyArb = fc.oneof(fc.constantFrom(MINUTE, 7 * MINUTE, HOUR, 90 * MINUTE, 6 * HOUR), fc.integer({ min: 5 * MINUTE, max: 12 * HOUR }).map((v) => Math.round(v / 1000) * 1000)).map((every) => ({ every }));
// creation times around the 2026 DST transitions of the zones above, or anywhere in the year
const createdArb = fc.oneof(
  fc.constantFrom('2026-03-08T00:00:00Z', '2026-03-28T12:00:00Z', '2026-04-04T10:00:00Z', '2026-10-24T20:00:00Z', '2026-10-31T22:00:00Z', '2026-09-26T10:00:00Z').chain((d) =>
    fc.integer({ min: -2 * DAY, max: DAY }).map((o) => Math.floor((Date.parse(d) + o) / 1000) * 1000),
  ),
  fc.integer({ min: Date.parse('2026-01-01T00:00:00Z') / 1000, max: Date.parse('2026-12-01T00:00:00Z') / 1000 }).map((s) => s * 1000),
);
const scenarioArb = fc.record({
  def: fc.oneof(cronArb, everyArb),
  zone: zoneArb,
  created: createdArb,
  policy: fc.constantFrom<MisfirePolicy>('ReplayAll', 'SkipOldest', 'Collapse', 'Skip'),
  overflowCap: fc.integer({ min: 0, max: 300 }),
  windowMs: fc.integer({ min: HOUR, max: 4 * DAY }),
  onlineBefore: fc.array(fc.integer({ min: 1000, max: 40 * MINUTE }), { maxLength: 6 }),
  downtimeMs: fc.integer({ min: 0, max: 5 * DAY }),
  onlineAfter: fc.array(fc.integer({ min: 1000, max: 40 * MINUTE }), { maxLength: 6 }),
});

let h: ScheduleHarness;
beforeAll(() => {
  h = openScheduleHarness({ graceMs: GRACE, lookaheadMs: LOOKAHEAD });
});
afterAll(() => h.close());

interface Unit {
  what: string;
  from: number;
  to: number;
  count: number;
}

describe('materializer properties (random definitions, downtime, policies and caps)', () => {
  it('no shared slot, every slot accounted exactly once, runNumbers increase, a halt writes no backlog', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (s) => {
        const key = `p${run++}`;
        h.setNow(s.created);
        const id = await h.manager.upsert({ key, type: 'Prop.Job', ...s.def, timeZone: s.zone, misfire: { policy: s.policy, overflowCap: s.overflowCap, windowMs: s.windowMs } });
        const firstEvent = h.events.length;
        let t = s.created;
        for (const d of s.onlineBefore) await h.tick((t += d));
        await h.tick((t += s.downtimeMs + 1000));
        for (const d of s.onlineAfter) await h.tick((t += d));
        const events = h.events.slice(firstEvent).filter((e: SvcEvent) => e.taskId === id);
        const occ = (await occurrencesOf(h.probe, id));
        const row = (await scheduleRow(h.probe, id));
        const halt = row.halt === null ? null : (JSON.parse(row.halt) as { cursorUtc: string; detectedAtLeast: number });
        await h.manager.cancel(key); // out of the way of the next runs

        const horizon = t + LOOKAHEAD;
        const def = s.def as { cron?: string; every?: number };
        const oracle = def.cron !== undefined
          ? cronSlotsByBruteForce(def.cron, s.zone, s.created, horizon)
          : Array.from({ length: Math.floor((horizon - s.created) / def.every!) }, (_, k) => s.created + (k + 1) * def.every!);

        // 1. no two occurrences share a slot, and each is a real slot
        const slots = occ.map((o) => o.nominal_slot_at);
        expect(new Set(slots).size).toBe(slots.length);
        const oracleSet = new Set(oracle);
        for (const sl of slots) expect(oracleSet.has(sl)).toBe(true);
        // 2. runNumbers 1, 2, … strictly increasing with slots
        expect(occ.map((o) => o.run_number)).toEqual(occ.map((_, i) => i + 1));
        // 3. a halt writes no backlog occurrence (nothing after the cursor it kept)
        const accountedThrough = halt ? Date.parse(halt.cursorUtc) : row.cursor_at;
        if (halt) {
          expect(s.policy).toBe('ReplayAll');
          for (const sl of slots) expect(sl).toBeLessThanOrEqual(accountedThrough);
        } else {
          // nothing due is left behind: every slot up to the horizon is accounted for
          expect(oracle.filter((x) => x > accountedThrough)).toEqual([]);
        }
        // 4. every slot up to the cursor is exactly one occurrence or counted in exactly one event
        const units: Unit[] = [
          ...occ.map((o) => (o.missed_count === null
            ? { what: `occ ${o.run_number}`, from: o.nominal_slot_at, to: o.nominal_slot_at, count: 1 }
            : { what: 'collapse', from: o.missed_from!, to: o.missed_through!, count: o.missed_count })),
          ...events.map((e) => ({ what: e.reason!, from: Date.parse(e.firstSlotUtc!), to: Date.parse(e.lastSlotUtc!), count: e.skippedCount! })),
        ];
        for (const u of units) {
          expect(oracle.filter((x) => x >= u.from && x <= u.to).length, u.what).toBe(u.count);
        }
        for (const x of oracle) {
          const covering = units.filter((u) => x >= u.from && x <= u.to).length;
          expect(covering, new Date(x).toISOString()).toBe(x <= accountedThrough ? 1 : 0);
        }
        // OnTime occurrences were written ahead of their slot; CatchUp ones stand for missed work
        for (const o of occ) expect(['OnTime', 'CatchUp']).toContain(o.misfire_kind);
      }),
      // The planning is the same code on every store; on PostgreSQL (a round trip per write) fewer
      // random scenarios check that its writes read back the same. The scenarios' work varies with
      // the random definitions (up to five days of minute slots against the brute-force oracle), and
      // a loaded machine runs them several times slower: the property checks as many scenarios as
      // fit in its time budget, and a failing one fails the test whenever it is reached.
      { numRuns: BACKEND === 'postgres' ? 30 : 120, interruptAfterTimeLimit: PROPERTY_BUDGET_MS },
    );
  }, PROPERTY_BUDGET_MS + 30_000);
});
