import { afterEach, describe, expect, it } from 'vitest';
import type { MisfirePolicy } from '../../../server/src/contracts/index.js';
import { auditsOf, hourly, iso, ms, occurrencesOf, openScheduleHarness, scheduleRow, type ScheduleHarness } from '../../fixtures/server/scheduleHarness.js';

// An hourly UTC schedule created at 2026-01-05T00:30Z; the engine is then down for 3 days and
// comes back at 2026-01-08T00:30Z. 72 slots were missed: 48 older than the 24 h misfire window
// (2026-01-05T01:00Z … 2026-01-07T00:00Z) and 24 inside it (2026-01-07T01:00Z … 2026-01-08T00:00Z).
const CREATED = '2026-01-05T00:30:00.000Z';
const BACK = '2026-01-08T00:30:00.000Z';
const IN_WINDOW = hourly('2026-01-07T01:00:00.000Z', '2026-01-08T00:00:00.000Z');
const OUTSIDE = { reason: 'OutsideMisfireWindow', skippedCount: 48, firstSlotUtc: '2026-01-05T01:00:00.000Z', lastSlotUtc: '2026-01-07T00:00:00.000Z' };

let h: ScheduleHarness;
afterEach(() => h?.close());

async function downtime(policy: MisfirePolicy, overflowCap: number) {
  h = openScheduleHarness({ startAt: CREATED });
  const id = await h.manager.upsert({ key: `hourly-${policy}`, type: 'Reports.Hourly', cron: '0 * * * *', misfire: { policy, overflowCap } });
  expect((await h.tick()).written).toBe(0); // nothing due at creation
  await h.tick(BACK);
  const skipped = h.events.map((e) => ({ reason: e.reason, skippedCount: e.skippedCount, firstSlotUtc: e.firstSlotUtc, lastSlotUtc: e.lastSlotUtc }));
  return { id, occ: (await occurrencesOf(h.probe, id)), row: (await scheduleRow(h.probe, id)), skipped };
}

describe('3 days of downtime on an hourly schedule', () => {
  it('ReplayAll, cap above the missed count: one CatchUp occurrence per slot inside the window', async () => {
    const { id, occ, row, skipped } = await downtime('ReplayAll', 100);
    expect(occ.map((o) => iso(o.nominal_slot_at))).toEqual(IN_WINDOW);
    expect(occ.map((o) => o.run_number)).toEqual(IN_WINDOW.map((_, i) => i + 1));
    expect(new Set(occ.map((o) => o.misfire_kind))).toEqual(new Set(['CatchUp']));
    for (const o of occ) {
      expect(o).toMatchObject({ status: 'Pending', scheduled_at: ms(BACK), schedule_version: 1, time_zone_id: 'UTC', occurrence_mode: 'Durable', is_recurring: 0, missed_count: null });
      expect((await auditsOf(h.probe, o.id))).toEqual(['Pending']);
    }
    expect(skipped).toEqual([OUTSIDE]);
    expect(h.events[0]).toMatchObject({ kind: 'OccurrenceSkipped', severity: 'Warning', taskId: id, scheduleVersion: 1, taskType: 'Reports.Hourly' });
    expect(row).toMatchObject({ status: 'Pending', halt: null, cursor_at: ms('2026-01-08T00:00:00Z'), scheduled_at: ms('2026-01-08T01:00:00Z') });
    expect(h.wakes).toBeGreaterThan(0);
  });

  it('ReplayAll, cap below the missed count: halts, writes no backlog occurrence and emits nothing', async () => {
    const { occ, row, skipped } = await downtime('ReplayAll', 10);
    expect(occ).toEqual([]);
    expect(skipped).toEqual([]);
    expect(row.status).toBe('Pending');
    expect(JSON.parse(row.halt!)).toEqual({
      atUtc: BACK,
      reason: 'OverflowCapExceeded',
      detectedAtLeast: 24,
      isExact: true,
      cursorUtc: CREATED,
      scheduleVersion: 1,
    });
    // a halt never releases itself: later ticks leave it alone, and so does a restarted engine
    await h.tick('2026-01-09T00:30:00Z');
    expect((await occurrencesOf(h.probe, row.id))).toEqual([]);
    await h.sut.close(); // the engine goes down; its data stays
    const restarted = openScheduleHarness({ sut: h.sut.reopen(), startAt: '2026-01-10T00:30:00Z' });
    try {
      await restarted.tick();
      expect((await occurrencesOf(restarted.probe, row.id))).toEqual([]);
      expect(JSON.parse((await scheduleRow(restarted.probe, row.id)).halt!).atUtc).toBe(BACK);
    } finally {
      await restarted.close();
    }
  });

  it('SkipOldest, cap below: the newest cap slots run, older ones are dropped as OverflowCap', async () => {
    const { occ, skipped } = await downtime('SkipOldest', 10);
    expect(occ.map((o) => iso(o.nominal_slot_at))).toEqual(IN_WINDOW.slice(14));
    expect(occ.map((o) => o.run_number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(occ.every((o) => o.misfire_kind === 'CatchUp')).toBe(true);
    expect(skipped).toEqual([
      OUTSIDE,
      { reason: 'OverflowCap', skippedCount: 14, firstSlotUtc: IN_WINDOW[0], lastSlotUtc: IN_WINDOW[13] },
    ]);
  });

  it('SkipOldest, cap above: every slot inside the window runs', async () => {
    const { occ, skipped } = await downtime('SkipOldest', 100);
    expect(occ.map((o) => iso(o.nominal_slot_at))).toEqual(IN_WINDOW);
    expect(skipped).toEqual([OUTSIDE]);
  });

  for (const cap of [10, 100]) {
    it(`Collapse (cap ${cap}): one CatchUp occurrence standing for the 24 missed slots`, async () => {
      const { occ, skipped, row } = await downtime('Collapse', cap);
      expect(occ).toHaveLength(1);
      expect(occ[0]).toMatchObject({
        nominal_slot_at: ms('2026-01-08T00:00:00Z'),
        run_number: 1,
        misfire_kind: 'CatchUp',
        missed_from: ms(IN_WINDOW[0]!),
        missed_through: ms('2026-01-08T00:00:00Z'),
        missed_count: 24,
        missed_count_is_exact: 1,
        scheduled_at: ms(BACK),
      });
      expect(skipped).toEqual([OUTSIDE]);
      expect(row.halt).toBeNull();
    });

    it(`Skip (cap ${cap}): only the newest missed slot runs, the others are NotCurrent`, async () => {
      const { occ, skipped } = await downtime('Skip', cap);
      expect(occ.map((o) => [iso(o.nominal_slot_at), o.run_number, o.misfire_kind, o.missed_count])).toEqual([
        ['2026-01-08T00:00:00.000Z', 1, 'CatchUp', null],
      ]);
      expect(skipped).toEqual([OUTSIDE, { reason: 'NotCurrent', skippedCount: 23, firstSlotUtc: IN_WINDOW[0], lastSlotUtc: IN_WINDOW[22] }]);
    });
  }

  it('after the catch-up, slots are materialized OnTime ahead of their slot, numbering goes on', async () => {
    const { id } = await downtime('ReplayAll', 100);
    await h.tick('2026-01-08T00:59:59.000Z'); // 01:00 is within the 2 s lookahead
    const last = (await occurrencesOf(h.probe, id)).at(-1)!;
    expect(last).toMatchObject({ nominal_slot_at: ms('2026-01-08T01:00:00Z'), scheduled_at: ms('2026-01-08T01:00:00Z'), misfire_kind: 'OnTime', run_number: 25, status: 'Pending' });
    await h.tick('2026-01-08T01:00:00.500Z');
    expect((await occurrencesOf(h.probe, id))).toHaveLength(25); // no duplicate for the same slot
    expect((await scheduleRow(h.probe, id)).scheduled_at).toBe(ms('2026-01-08T02:00:00Z'));
  });
});

describe('audit level and queue of occurrences', () => {
  it('occurrences inherit the schedule\'s audit level and queue; ErrorsOnly and None write no Pending audit', async () => {
    h = openScheduleHarness({ startAt: CREATED });
    const full = await h.manager.upsert({ key: 'full', type: 'Jobs.A', cron: '0 * * * *', queue: 'reports' });
    const quiet = await h.manager.upsert({ key: 'quiet', type: 'Jobs.A', cron: '0 * * * *', auditLevel: 'ErrorsOnly' });
    const none = await h.manager.upsert({ key: 'none', type: 'Jobs.A', cron: '0 * * * *', auditLevel: 'None' });
    await h.tick('2026-01-05T02:30:00Z');
    const q = (id: string) => h.probe.rows('SELECT queue, audit_level, handler, request FROM tasks WHERE parent_task_id = ?', id);
    expect(await q(full)).toEqual([1, 2].map(() => ({ queue: 'reports', audit_level: 'Full', handler: 'Jobs.AHandler', request: 'null' })));
    expect(await Promise.all((await occurrencesOf(h.probe, full)).map((o) => auditsOf(h.probe, o.id)))).toEqual([['Pending'], ['Pending']]);
    expect(await Promise.all((await occurrencesOf(h.probe, quiet)).map((o) => auditsOf(h.probe, o.id)))).toEqual([[], []]);
    expect(await Promise.all((await occurrencesOf(h.probe, none)).map((o) => auditsOf(h.probe, o.id)))).toEqual([[], []]);
    expect((await auditsOf(h.probe, none))).toEqual([]);
  });
});

describe('bounded series and intervals', () => {
  it('maxRuns: the schedule row becomes Completed after its last materialization', async () => {
    h = openScheduleHarness({ startAt: '2026-01-05T00:00:30Z' });
    const id = await h.manager.upsert({ key: 'three', type: 'Jobs.Three', every: '10m', maxRuns: 3 });
    for (let t = ms('2026-01-05T00:00:30Z'); t <= ms('2026-01-05T01:00:00Z'); t += 60_000) await h.tick(t);
    const occ = (await occurrencesOf(h.probe, id));
    expect(occ.map((o) => [iso(o.nominal_slot_at), o.run_number, o.misfire_kind])).toEqual([
      ['2026-01-05T00:10:30.000Z', 1, 'OnTime'],
      ['2026-01-05T00:20:30.000Z', 2, 'OnTime'],
      ['2026-01-05T00:30:30.000Z', 3, 'OnTime'],
    ]);
    expect((await scheduleRow(h.probe, id))).toMatchObject({ status: 'Completed', scheduled_at: null });
    expect((await auditsOf(h.probe, id))).toEqual(['Pending', 'Completed']);
  });

  it('until: the series ends with its last slot at or before until', async () => {
    h = openScheduleHarness({ startAt: '2026-01-05T00:30:00Z' });
    const id = await h.manager.upsert({ key: 'until', type: 'Jobs.Until', cron: '0 * * * *', until: '2026-01-05T03:00:00Z' });
    await h.tick('2026-01-05T10:00:00Z');
    expect((await occurrencesOf(h.probe, id)).map((o) => iso(o.nominal_slot_at))).toEqual(hourly('2026-01-05T01:00:00Z', '2026-01-05T03:00:00Z'));
    expect((await scheduleRow(h.probe, id)).status).toBe('Completed');
  });

  it('interval schedules count arithmetically: a year of 1 s slots halts with an exact count', async () => {
    h = openScheduleHarness({ startAt: '2026-01-01T00:00:00Z' });
    const id = await h.manager.upsert({ key: 'fast', type: 'Jobs.Fast', every: 1000, misfire: { policy: 'ReplayAll', windowMs: 400 * 86_400_000, overflowCap: 100 } });
    await h.tick('2027-01-01T00:00:00Z');
    const halt = JSON.parse((await scheduleRow(h.probe, id)).halt!);
    // slots T+1 s … T+365 d−6 s are older than now − 5 s grace (the one at exactly now − 5 s is still on time)
    expect(halt).toMatchObject({ isExact: true, detectedAtLeast: 365 * 86_400 - 6 });
    expect((await occurrencesOf(h.probe, id))).toEqual([]);
  });
});
