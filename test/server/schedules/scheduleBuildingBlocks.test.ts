// @backends sqlite — never reaches a store.
import { describe, expect, it } from 'vitest';
import { IntervalSlotSource } from '../../../server/src/engine/schedules/IntervalSlotSource.js';
import { planOccurrences } from '../../../server/src/engine/schedules/MisfirePlanner.js';
import { parseDuration } from '../../../server/src/engine/schedules/parseDuration.js';
import { uuidV7 } from '../../../server/src/engine/uuidV7.js';

describe('building blocks', () => {
  it('uuidV7: RFC 9562 version 7 GUIDs, strictly increasing within the process', () => {
    const ids = Array.from({ length: 5000 }, () => uuidV7());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Number.parseInt(uuidV7(Date.parse('2030-01-01T00:00:00Z')).replace(/-/g, '').slice(0, 12), 16)).toBe(Date.parse('2030-01-01T00:00:00Z'));
  });

  it('parseDuration: numbers of ms and unit strings; anything else is refused', () => {
    expect(parseDuration(1500)).toBe(1500);
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('2d')).toBe(172_800_000);
    for (const bad of ['', '5', 'm5', '5 m', '-5m', '5x', 0, -1, 1.5]) expect(parseDuration(bad as never)).toBeNull();
  });

  it('the planner is pure: same input, same plan; it never mutates its input', () => {
    const input = {
      source: new IntervalSlotSource(0, 60_000),
      misfire: { policy: 'SkipOldest' as const, windowMs: 3_600_000, overflowCap: 10 },
      cursor: 0,
      now: 7_200_000,
      bounds: { graceMs: 5000, lookaheadMs: 2000, countBound: 100_000 },
      nextRunNumber: 1,
      remainingRuns: Number.POSITIVE_INFINITY,
    };
    const frozen = JSON.stringify({ ...input, source: undefined });
    const a = planOccurrences(input);
    const b = planOccurrences(input);
    expect(a).toEqual(b);
    expect(JSON.stringify({ ...input, source: undefined })).toBe(frozen);
    expect(a.occurrences.map((o) => o.slot / 60_000)).toEqual([110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120]);
    expect(a.occurrences.map((o) => o.misfireKind)).toEqual([...Array(10).fill('CatchUp'), 'OnTime']);
    expect(a.skipped.map((s) => [s.reason, s.count, s.firstSlot / 60_000, s.lastSlot / 60_000])).toEqual([
      ['OutsideMisfireWindow', 59, 1, 59],
      ['OverflowCap', 50, 60, 109],
    ]);
    expect(a.cursor).toBe(120 * 60_000);
  });
});
