import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../fixtures/waitFor.js';
import { openStoreUnderTest, type StoreUnderTest } from '../../fixtures/server/storeUnderTest.js';
import type { Engine, SvcEvent } from '../../../server/src/index.js';

// Durable schedules inside the real engine (createEngine): the materializer runs as its ticker,
// the engine's workers run the occurrences, and never the schedule row. The engines run on an
// injected clock (a fixed instant), so slot counts never depend on when the suite starts.

const NOW = Date.parse('2026-03-02T10:00:30.000Z');
const HOUR_AGO = NOW - 3_600_000;

let sut: StoreUnderTest | undefined;
let engine: Engine | undefined;
afterEach(async () => {
  await engine?.stop({ graceMs: 0 });
  engine = undefined;
  await sut?.destroy();
  sut = undefined;
});

function open(): StoreUnderTest {
  sut = openStoreUnderTest();
  return sut;
}

const rows = (sql: string, ...params: unknown[]) => sut!.probe.rows(sql, ...params);

describe('durable schedules in the real engine', () => {
  it('after an hour of downtime, the first tick catches up and the workers run every occurrence, never the schedule row', async () => {
    const store = open();
    // The schedule was created an hour ago by an engine that then went down.
    const before = store.engine({ clock: () => HOUR_AGO });
    const id = await before.schedules.upsert({
      key: 'minutely', type: 'Jobs.Minute', cron: '* * * * *',
      misfire: { policy: 'ReplayAll', windowMs: 30 * 60_000, overflowCap: 100 },
    });

    engine = store.engine({ pollIntervalMs: 20, clock: () => NOW });
    const events: SvcEvent[] = [];
    engine.on('event', (e) => events.push(e));
    const ran: string[] = [];
    engine.handle('Jobs.Minute', async (_req, ctx) => void ran.push(ctx.taskId));
    await engine.start();

    const occurrences = () => rows('SELECT id, status, misfire_kind, run_number FROM tasks WHERE parent_task_id = ? ORDER BY nominal_slot_at', id);
    await waitFor(async () => {
      const occ = await occurrences();
      return occ.length === 30 && occ.every((o) => o.status === 'Completed');
    }, 15_000, 'the catch-up to run', 10);
    const occ = await occurrences();
    // 09:31 … 10:00: the slots of the 30-minute window (10:00 is 30 s old, past the 5 s grace).
    expect(occ.map((o) => o.run_number)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(occ.every((o) => o.misfire_kind === 'CatchUp')).toBe(true);
    expect(new Set(ran)).toEqual(new Set(occ.map((o) => o.id)));

    const skipped = events.filter((e) => e.kind === 'OccurrenceSkipped');
    expect(skipped).toHaveLength(1);
    // 09:01 … 09:30 are older than the window.
    expect(skipped[0]).toMatchObject({
      taskId: id, reason: 'OutsideMisfireWindow', severity: 'Warning', scheduleVersion: 1,
      skippedCount: 30, firstSlotUtc: '2026-03-02T09:01:00.000Z', lastSlotUtc: '2026-03-02T09:30:00.000Z',
    });
    const completed = events.filter((e) => e.kind === 'Completed');
    expect(completed.every((e) => e.parentTaskId === id)).toBe(true);

    const schedule = (await rows('SELECT status, run_count, started_at FROM tasks WHERE id = ?', id))[0]!;
    expect(schedule).toEqual({ status: 'Pending', run_count: 0, started_at: null });
    expect(await rows('SELECT new_status FROM status_audit WHERE task_id = ?', id)).toEqual([{ new_status: 'Pending' }]);
    expect(events.some((e) => e.taskId === id && e.kind !== 'OccurrenceSkipped')).toBe(false);
  });

  it('a failed occurrence requeued through engine.schedules runs again under its id and completes', async () => {
    const store = open();
    const before = store.engine({ clock: () => HOUR_AGO - 1_000 });
    const id = await before.schedules.upsert({ key: 'once', type: 'Jobs.Flaky', every: '1h', misfire: { policy: 'Skip' } });

    engine = store.engine({ pollIntervalMs: 20, clock: () => NOW });
    let calls = 0;
    engine.handle('Jobs.Flaky', async () => {
      calls++;
      if (calls === 1) throw new Error('first delivery fails');
    }, { retry: { attempts: 1 } });
    await engine.start();
    const occ = () => rows('SELECT id, status, run_number FROM tasks WHERE parent_task_id = ?', id);
    await waitFor(async () => {
      const o = await occ();
      return o.length === 1 && o[0]!.status === 'Failed';
    }, 10_000, 'the occurrence to fail', 10);
    const occurrenceId = (await occ())[0]!.id as string;

    expect(await engine.schedules.requeue(occurrenceId)).toMatchObject({ status: 'Succeeded', taskId: occurrenceId });
    await waitFor(async () => (await occ())[0]!.status === 'Completed', 10_000, 'the requeued occurrence to complete', 10);
    expect(await occ()).toEqual([{ id: occurrenceId, status: 'Completed', run_number: 1 }]);
    const audits = (await rows('SELECT new_status FROM status_audit WHERE task_id = ? ORDER BY id', occurrenceId)).map((r) => r.new_status);
    expect(audits.slice(audits.indexOf('Failed'))).toEqual(['Failed', 'Queued', 'InProgress', 'Completed']);
    expect(calls).toBe(2);
    // the schedule row itself is refused, and so is the occurrence now that it is Completed
    expect(await engine.schedules.requeue(id)).toMatchObject({ status: 'Conflict' });
    expect(await engine.schedules.requeue(occurrenceId)).toMatchObject({ status: 'Conflict' });
  });
});
