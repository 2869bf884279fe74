import { Cron } from 'croner';
import { afterEach, describe, expect, it } from 'vitest';
import { CronSlotSource } from '../../../server/src/engine/schedules/CronSlotSource.js';
import { iso, ms, occurrencesOf, openScheduleHarness, scheduleRow, type ScheduleHarness } from '../../fixtures/server/scheduleHarness.js';

let h: ScheduleHarness;
// A test may open several harnesses (one per zone it compares): every one is closed after it.
const opened: ScheduleHarness[] = [];
const open = (startAt: string): ScheduleHarness => {
  h = openScheduleHarness({ startAt });
  opened.push(h);
  return h;
};
afterEach(async () => {
  while (opened.length > 0) await opened.pop()!.close();
});

/** Slots materialized for `cron` in `zone` over (from, to], written while the engine ticks every 10 min. */
async function materialized(cron: string, zone: string, from: string, to: string): Promise<string[]> {
  open(from);
  const id = await h.manager.upsert({ key: `${cron}@${zone}`, type: 'Jobs.Zoned', cron, timeZone: zone });
  for (let t = ms(from); t <= ms(to); t += 600_000) await h.tick(t);
  const occ = (await occurrencesOf(h.probe, id));
  expect(occ.every((o) => o.time_zone_id === zone && o.misfire_kind === 'OnTime')).toBe(true);
  expect((await scheduleRow(h.probe, id)).time_zone_id).toBe(zone);
  return occ.map((o) => iso(o.nominal_slot_at)!);
}

describe('DST transitions (a missing local time is skipped, an ambiguous one runs once)', () => {
  it('Europe/Rome spring forward: 02:30 does not exist on 2026-03-29', async () => {
    expect(await materialized('30 2 * * *', 'Europe/Rome', '2026-03-27T12:00:00Z', '2026-03-31T12:00:00Z')).toEqual([
      '2026-03-28T01:30:00.000Z', // 02:30 CET
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
      '2026-03-31T00:30:00.000Z',
    ]);
    // croner alone (Vixie rule) would run it after the gap, at 03:00 CEST: corrected here
    expect(new Cron('30 2 * * *', { timezone: 'Europe/Rome' }).nextRun(new Date('2026-03-28T12:00:00Z'))!.toISOString()).toBe('2026-03-29T01:00:00.000Z');
  });

  it('Europe/Rome fall back: 02:00 and 02:30 occur twice on 2026-10-25 and run once', async () => {
    const slots = await materialized('*/30 * * * *', 'Europe/Rome', '2026-10-24T23:10:00Z', '2026-10-25T02:40:00Z');
    expect(slots).toEqual([
      '2026-10-24T23:30:00.000Z', // 01:30 CEST
      '2026-10-25T00:00:00.000Z', // 02:00 CEST (first)
      '2026-10-25T00:30:00.000Z', // 02:30 CEST (first)
      // 01:00Z and 01:30Z are 02:00 and 02:30 CET again: not repeated
      '2026-10-25T02:00:00.000Z', // 03:00 CET
      '2026-10-25T02:30:00.000Z',
    ]);
    expect(await materialized('30 2 * * *', 'Europe/Rome', '2026-10-24T12:00:00Z', '2026-10-26T12:00:00Z')).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
  });

  it('America/New_York spring forward: 02:30 does not exist on 2026-03-08', async () => {
    expect(await materialized('30 2 * * *', 'America/New_York', '2026-03-06T12:00:00Z', '2026-03-09T12:00:00Z')).toEqual([
      '2026-03-07T07:30:00.000Z', // 02:30 EST
      '2026-03-09T06:30:00.000Z', // 02:30 EDT
    ]);
    const hourly = await materialized('0 * * * *', 'America/New_York', '2026-03-08T05:30:00Z', '2026-03-08T08:30:00Z');
    expect(hourly).toEqual(['2026-03-08T06:00:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-08T08:00:00.000Z']); // 01:00 EST, 03:00 EDT, 04:00 EDT
  });

  it('America/New_York fall back: 01:30 occurs twice on 2026-11-01 and runs once', async () => {
    expect(await materialized('30 1 * * *', 'America/New_York', '2026-10-31T00:00:00Z', '2026-11-02T12:00:00Z')).toEqual([
      '2026-10-31T05:30:00.000Z',
      '2026-11-01T05:30:00.000Z', // 01:30 EDT; 06:30Z (01:30 EST) is not repeated
      '2026-11-02T06:30:00.000Z',
    ]);
    // croner alone runs an interval job on both occurrences of the hour: corrected here
    const croner = new Cron('*/30 1 * * *', { timezone: 'America/New_York' }).nextRuns(4, new Date('2026-11-01T04:00:00Z')).map((d) => d.toISOString());
    expect(croner).toEqual(['2026-11-01T05:00:00.000Z', '2026-11-01T05:30:00.000Z', '2026-11-01T06:00:00.000Z', '2026-11-01T06:30:00.000Z']);
    const ours = [...new CronSlotSource('*/30 1 * * *', 'America/New_York').forward(ms('2026-11-01T04:00:00Z'), ms('2026-11-02T04:00:00Z'))].map((v) => iso(v));
    expect(ours).toEqual(['2026-11-01T05:00:00.000Z', '2026-11-01T05:30:00.000Z']);
  });
});

describe('the counting bound', () => {
  it('a per-second cron over a year of downtime halts with detectedAtLeast = 100,000, isExact = false', async () => {
    open('2026-01-01T00:00:00Z');
    const id = await h.manager.upsert({
      key: 'every-second', type: 'Jobs.Second', cron: '* * * * * *', timeZone: 'Europe/Rome',
      misfire: { policy: 'ReplayAll', windowMs: 400 * 86_400_000, overflowCap: 1000 },
    });
    await h.tick('2027-01-01T00:00:00Z');
    expect(JSON.parse((await scheduleRow(h.probe, id)).halt!)).toEqual({
      atUtc: '2027-01-01T00:00:00.000Z',
      reason: 'OverflowCapExceeded',
      detectedAtLeast: 100_000,
      isExact: false,
      cursorUtc: '2026-01-01T00:00:00.000Z',
      scheduleVersion: 1,
    });
    expect((await occurrencesOf(h.probe, id))).toEqual([]);
  });

  it('Collapse over the bound: missedCount = 100,000 with missedCountIsExact = false', async () => {
    open('2026-01-01T00:00:00Z');
    const id = await h.manager.upsert({
      key: 'collapse-second', type: 'Jobs.Second', cron: '* * * * * *',
      misfire: { policy: 'Collapse', windowMs: 400 * 86_400_000 },
    });
    await h.tick('2027-01-01T00:00:00Z');
    const occ = (await occurrencesOf(h.probe, id));
    expect(occ.filter((o) => o.misfire_kind === 'CatchUp')).toEqual([
      expect.objectContaining({
        missed_count: 100_000, missed_count_is_exact: 0,
        missed_from: ms('2026-01-01T00:00:01Z'), missed_through: ms('2026-12-31T23:59:54Z'), nominal_slot_at: ms('2026-12-31T23:59:54Z'),
      }),
    ]);
    // the slots within the 5 s grace and the 2 s lookahead are OnTime
    expect(occ.filter((o) => o.misfire_kind === 'OnTime').map((o) => iso(o.nominal_slot_at))).toEqual([
      '2026-12-31T23:59:55.000Z', '2026-12-31T23:59:56.000Z', '2026-12-31T23:59:57.000Z', '2026-12-31T23:59:58.000Z',
      '2026-12-31T23:59:59.000Z', '2027-01-01T00:00:00.000Z', '2027-01-01T00:00:01.000Z', '2027-01-01T00:00:02.000Z',
    ]);
  });
});
