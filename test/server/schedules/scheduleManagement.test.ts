import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ScheduleOperationError } from '../../../server/src/engine/schedules/index.js';
import { auditsOf, hourly, iso, ms, occurrencesOf, openScheduleHarness, scheduleRow, type ScheduleHarness } from '../../fixtures/server/scheduleHarness.js';

let h: ScheduleHarness;
afterEach(() => h?.close());

const setStatus = async (id: string, status: string, exception: string | null = null) => {
  await h.probe.run('UPDATE tasks SET status = ?, exception = ? WHERE id = ?', status, exception, id);
  await h.probe.run('INSERT INTO status_audit (task_id, updated_at, new_status, exception) VALUES (?, ?, ?, ?)', id, h.now, status, exception);
};

describe('resume after a halt', () => {
  it('re-plans the kept backlog: halts again while it is over the cap, succeeds once it fits', async () => {
    // Hourly, series ends at 2026-01-07T22:00Z; down from 2026-01-05T00:30Z to 2026-01-08T00:30Z.
    // Inside the 24 h window: 2026-01-07T01:00Z … 22:00Z = 22 slots > cap 20 → halt.
    h = openScheduleHarness({ startAt: '2026-01-05T00:30:00Z' });
    const id = await h.manager.upsert({
      key: 'nightly', type: 'Reports.Nightly', cron: '0 * * * *', until: '2026-01-07T22:00:00Z',
      misfire: { policy: 'ReplayAll', overflowCap: 20 },
    });
    await h.tick('2026-01-08T00:30:00Z');
    expect(JSON.parse((await scheduleRow(h.probe, id)).halt!)).toMatchObject({ detectedAtLeast: 22, isExact: true, cursorUtc: '2026-01-05T00:30:00.000Z' });

    // Resume at once: same backlog, still over the cap → halts again (new detection time).
    h.setNow('2026-01-08T00:40:00Z');
    const again = await h.manager.resume('nightly');
    expect(again).toMatchObject({ status: 'Succeeded', taskId: id, releasedHalt: true });
    expect(JSON.parse((await scheduleRow(h.probe, id)).halt!)).toMatchObject({ atUtc: '2026-01-08T00:40:00.000Z', detectedAtLeast: 22 });
    expect((await occurrencesOf(h.probe, id))).toEqual([]);

    // Three hours later the window has slid past three of them: 19 fit under the cap.
    h.setNow('2026-01-08T03:30:00Z');
    const ok = await h.manager.resume('nightly');
    expect(ok).toMatchObject({ status: 'Succeeded', releasedHalt: true });
    const occ = (await occurrencesOf(h.probe, id));
    expect(occ.map((o) => iso(o.nominal_slot_at))).toEqual(hourly('2026-01-07T04:00:00Z', '2026-01-07T22:00:00Z'));
    expect(occ.map((o) => o.run_number)).toEqual(occ.map((_, i) => i + 1));
    expect((await scheduleRow(h.probe, id))).toMatchObject({ halt: null, status: 'Completed' });
    expect(h.events.map((e) => [e.reason, e.skippedCount, e.firstSlotUtc, e.lastSlotUtc])).toEqual([
      ['OutsideMisfireWindow', 51, '2026-01-05T01:00:00.000Z', '2026-01-07T03:00:00.000Z'],
    ]);
  });

  it('answers releasedHalt=false for a schedule that is not halted, NotFound for an unknown key', async () => {
    h = openScheduleHarness();
    const id = await h.manager.upsert({ key: 'calm', type: 'Jobs.Calm', cron: '0 * * * *' });
    expect(await h.manager.resume('calm')).toEqual({
      status: 'Succeeded', taskId: id, releasedHalt: false, nextRunUtc: '2026-01-05T01:00:00.000Z', message: expect.any(String),
    });
    expect(await h.manager.resume('nope')).toMatchObject({ status: 'NotFound' });
    expect(await h.manager.resumeTask(randomUUID())).toMatchObject({ status: 'NotFound' });
  });
});

describe('definition change', () => {
  it('bumps scheduleVersion, clears the halt and materializes under the new definition', async () => {
    h = openScheduleHarness({ startAt: '2026-01-05T00:30:00Z' });
    const id = await h.manager.upsert({ key: 'k', type: 'Jobs.K', cron: '0 * * * *', misfire: { overflowCap: 10 } });
    await h.tick('2026-01-08T00:30:00Z');
    const halt = (await scheduleRow(h.probe, id)).halt;
    // 24 hourly slots inside the 24 h look-back window, over the cap of 10.
    expect(JSON.parse(halt!)).toEqual({
      atUtc: '2026-01-08T00:30:00.000Z', reason: 'OverflowCapExceeded', detectedAtLeast: 24, isExact: true, cursorUtc: '2026-01-05T00:30:00.000Z', scheduleVersion: 1,
    });
    // the same definition again changes nothing (the halt stays, as it was)
    expect(await h.manager.upsert({ key: 'k', type: 'Jobs.K', cron: '0 * * * *', misfire: { overflowCap: 10 } })).toBe(id);
    expect((await scheduleRow(h.probe, id))).toMatchObject({ schedule_version: 1, halt });

    expect(await h.manager.upsert({ key: 'k', type: 'Jobs.K', cron: '0 * * * *', misfire: { overflowCap: 50 } })).toBe(id);
    expect((await scheduleRow(h.probe, id))).toMatchObject({ schedule_version: 2, halt: null, status: 'Pending' });
    await h.tick();
    const occ = (await occurrencesOf(h.probe, id));
    expect(occ).toHaveLength(24);
    expect(occ.every((o) => o.schedule_version === 2)).toBe(true);
  });

  it('cancels not-yet-started occurrences of the old version whose slot the new definition does not produce', async () => {
    h = openScheduleHarness({ startAt: '2026-01-05T00:30:00Z' });
    const id = await h.manager.upsert({ key: 'k', type: 'Jobs.K', cron: '0 * * * *' });
    await h.tick('2026-01-05T06:30:00Z'); // 01:00 … 06:00 → six CatchUp occurrences (within cap 100)
    const occ = (await occurrencesOf(h.probe, id));
    expect(occ).toHaveLength(6);
    const [one, two, three] = occ;
    await setStatus(one!.id, 'InProgress'); // 01:00 is running
    await setStatus(two!.id, 'Queued');     // 02:00 is waiting for a worker
    await setStatus(three!.id, 'Completed'); // 03:00 is done

    await h.manager.upsert({ key: 'k', type: 'Jobs.K', cron: '0 */2 * * *' });
    const after = new Map((await occurrencesOf(h.probe, id)).map((o) => [iso(o.nominal_slot_at), o.status]));
    expect(Object.fromEntries(after)).toEqual({
      '2026-01-05T01:00:00.000Z': 'InProgress', // started: finishes
      '2026-01-05T02:00:00.000Z': 'Queued', // produced by the new definition: kept
      '2026-01-05T03:00:00.000Z': 'Completed',
      '2026-01-05T04:00:00.000Z': 'Pending',
      '2026-01-05T05:00:00.000Z': 'Cancelled', // odd hour, not started
      '2026-01-05T06:00:00.000Z': 'Pending',
    });
    const five = (await occurrencesOf(h.probe, id))[4]!;
    expect((await auditsOf(h.probe, five.id))).toEqual(['Pending', 'Cancelled']);
    expect((await scheduleRow(h.probe, id))).toMatchObject({ schedule_version: 2, scheduled_at: ms('2026-01-05T08:00:00Z') });
    await h.tick('2026-01-05T07:59:59Z');
    expect((await occurrencesOf(h.probe, id)).at(-1)).toMatchObject({ nominal_slot_at: ms('2026-01-05T08:00:00Z'), schedule_version: 2, run_number: 7 });
  });
});

describe('cancel', () => {
  it('cancels the schedule and its not-started occurrences; running ones finish; the key stays dead', async () => {
    h = openScheduleHarness({ startAt: '2026-01-05T00:30:00Z' });
    const id = await h.manager.upsert({ key: 'c', type: 'Jobs.C', cron: '0 * * * *' });
    await h.tick('2026-01-05T04:30:00Z');
    const [a, b, c, d] = (await occurrencesOf(h.probe, id));
    await setStatus(a!.id, 'InProgress');
    await setStatus(b!.id, 'WaitingQueue');
    await setStatus(c!.id, 'Failed', 'boom');

    const res = await h.manager.cancel('c');
    expect(res).toMatchObject({ status: 'Succeeded', taskId: id });
    expect((await scheduleRow(h.probe, id))).toMatchObject({ status: 'Cancelled', scheduled_at: null });
    expect((await auditsOf(h.probe, id))).toEqual(['Pending', 'Cancelled']);
    expect((await occurrencesOf(h.probe, id)).map((o) => o.status)).toEqual(['InProgress', 'Cancelled', 'Failed', 'Cancelled']);
    expect((await auditsOf(h.probe, d!.id))).toEqual(['Pending', 'Cancelled']);

    await h.tick('2026-01-05T10:30:00Z');
    expect((await occurrencesOf(h.probe, id))).toHaveLength(4); // nothing materialized after cancel
    expect(await h.manager.cancel('c')).toMatchObject({ status: 'Conflict' });
    await expect(h.manager.upsert({ key: 'c', type: 'Jobs.C', cron: '0 * * * *' })).rejects.toMatchObject({ status: 'Conflict' });
    await expect(h.manager.upsert({ key: 'c', type: 'Jobs.C', cron: '0 * * * *' })).rejects.toBeInstanceOf(ScheduleOperationError);
    expect(await h.manager.cancel('unknown')).toMatchObject({ status: 'NotFound' });
    // its occurrences cannot be requeued
    expect(await h.manager.requeue(c!.id)).toMatchObject({ status: 'Conflict' });
    expect(await h.manager.requeue(d!.id)).toMatchObject({ status: 'Conflict' });
  });

  it('a schedule row without a task key cannot be cancelled or resumed: Conflict; other rows: Conflict', async () => {
    h = openScheduleHarness();
    const id = await h.manager.upsert({ key: 'tmp', type: 'Jobs.T', cron: '0 * * * *' });
    await h.probe.run('UPDATE tasks SET task_key = NULL WHERE id = ?', id); // as if dispatched through a lower-level path
    expect(await h.manager.cancelTask(id)).toMatchObject({ status: 'Conflict', taskId: id });
    expect(await h.manager.resumeTask(id)).toMatchObject({ status: 'Conflict', taskId: id });
    expect((await scheduleRow(h.probe, id)).status).toBe('Pending');
    const keyed = await h.manager.upsert({ key: 'keyed', type: 'Jobs.T', cron: '0 * * * *' });
    expect(await h.manager.cancelTask(keyed)).toMatchObject({ status: 'Succeeded', taskId: keyed });
    expect(await h.manager.cancelTask(randomUUID())).toMatchObject({ status: 'NotFound' });
  });
});

describe('requeue', () => {
  it('puts a Failed or Cancelled occurrence back to Queued with its id and audit trail, spending no run', async () => {
    h = openScheduleHarness({ startAt: '2026-01-05T00:30:00Z' });
    const id = await h.manager.upsert({ key: 'r', type: 'Jobs.R', cron: '0 * * * *' });
    await h.tick('2026-01-05T03:30:00Z');
    const [a, b, c] = (await occurrencesOf(h.probe, id));
    await setStatus(a!.id, 'Failed', 'Error: boom');
    await setStatus(b!.id, 'Cancelled');
    h.setNow('2026-01-05T03:40:00Z');
    const wakes = h.wakes;
    expect(await h.manager.requeue(a!.id)).toMatchObject({ status: 'Succeeded', taskId: a!.id });
    expect(await h.manager.requeue(b!.id)).toMatchObject({ status: 'Succeeded', taskId: b!.id });
    expect(h.wakes).toBe(wakes + 2);
    const after = (await occurrencesOf(h.probe, id));
    expect(after).toHaveLength(3);
    expect(after[0]).toMatchObject({ id: a!.id, status: 'Queued', run_number: 1, scheduled_at: ms('2026-01-05T03:40:00Z') });
    expect((await auditsOf(h.probe, a!.id))).toEqual(['Pending', 'Failed', 'Queued']);
    expect((await auditsOf(h.probe, b!.id))).toEqual(['Pending', 'Cancelled', 'Queued']);
    await h.tick('2026-01-05T03:59:59Z');
    expect((await occurrencesOf(h.probe, id)).at(-1)!.run_number).toBe(4); // the series' numbering is unaffected

    // refusals
    expect(await h.manager.requeue(id)).toMatchObject({ status: 'Conflict', taskId: id }); // schedule row
    expect(await h.manager.requeue(c!.id)).toMatchObject({ status: 'Conflict' }); // Pending: not terminal
    expect(await h.manager.requeue(a!.id)).toMatchObject({ status: 'Conflict' }); // Queued now
    await setStatus(c!.id, 'Completed');
    expect(await h.manager.requeue(c!.id)).toMatchObject({ status: 'Conflict' }); // Completed is not requeueable
    expect(await h.manager.requeue(randomUUID())).toMatchObject({ status: 'NotFound' });
    expect((await auditsOf(h.probe, c!.id))).toEqual(['Pending', 'Completed']); // refusals change nothing
  });
});

describe('definitions that cannot be evaluated and bad input', () => {
  it('unknown zone or a cron that never fires → Unavailable and nothing written', async () => {
    h = openScheduleHarness();
    const count = () => h.probe.value('SELECT COUNT(*) FROM tasks');
    await expect(h.manager.upsert({ key: 'z', type: 'Jobs.Z', cron: '0 * * * *', timeZone: 'Mars/Olympus_Mons' })).rejects.toMatchObject({ status: 'Unavailable' });
    await expect(h.manager.upsert({ key: 'f', type: 'Jobs.F', cron: '0 0 30 2 *' })).rejects.toMatchObject({ status: 'Unavailable' });
    expect(await count()).toBe(0);
  });

  it('bad input → TypeError naming the field, nothing written', async () => {
    h = openScheduleHarness();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ type: 'A', cron: '* * * * *' }, /"key"/],
      [{ key: 'k', cron: '* * * * *' }, /"type"/],
      [{ key: 'k', type: 'A' }, /cron.*every/],
      [{ key: 'k', type: 'A', cron: '* * * * *', every: '5m' }, /cron.*every/],
      [{ key: 'k', type: 'A', cron: 'not a cron' }, /"cron" is invalid/],
      [{ key: 'k', type: 'A', every: '5 parsecs' }, /"every"/],
      [{ key: 'k', type: 'A', every: -5 }, /"every"/],
      [{ key: 'k', type: 'A', every: '5m', misfire: { policy: 'Sometimes' } }, /misfire.policy/],
      [{ key: 'k', type: 'A', every: '5m', misfire: { overflowCap: -1 } }, /overflowCap/],
      [{ key: 'k', type: 'A', every: '5m', maxRuns: 0 }, /maxRuns/],
      [{ key: 'k', type: 'A', every: '5m', until: 'yesterday-ish' }, /until/],
      [{ key: 'k', type: 'A', every: '5m', request: { n: 1n } }, /request/],
    ];
    for (const [def, message] of cases) {
      await expect(h.manager.upsert(def as never)).rejects.toThrow(message);
    }
    expect(await h.probe.value('SELECT COUNT(*) FROM tasks')).toBe(0);
  });

  it('registers the materializer as an engine ticker', () => {
    h = openScheduleHarness({ intervalMs: 250 });
    expect(h.tickers).toEqual([{ name: 'occurrence-materializer', intervalMs: 250 }]);
  });
});
