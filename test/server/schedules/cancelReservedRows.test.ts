import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../fixtures/waitFor.js';
import { openStoreUnderTest, type StoreUnderTest } from '../../fixtures/server/storeUnderTest.js';
import type { Engine } from '../../../server/src/index.js';

// No handler begins for a row whose cancel committed first: rows reserved ahead of free workers
// (short handlers, one worker) are cancelled while others run, by a schedule cancel, a bulk cancel
// on the engine's own store (its own connection on SQLite: no notice reaches the engine), a bulk
// cancel from another process's handle, and engine.cancel by id. Every handler records whether it
// began after the cancel had answered; none may have, for a row the cancel ended.

const NOW = Date.parse('2026-03-02T10:00:30.000Z');
const HOUR_AGO = NOW - 3_600_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const opened: StoreUnderTest[] = [];
let engine: Engine | undefined;
afterEach(async () => {
  await engine?.stop({ graceMs: 0 });
  engine = undefined;
  for (const s of opened.splice(0).reverse()) await s.destroy();
});

function open(): StoreUnderTest {
  const sut = openStoreUnderTest();
  opened.push(sut);
  return sut;
}

/** Handlers of `type` that take ~1 ms and note which task began after `cancelled` was set (or its own cancel answered). */
function recordBegins(e: Engine, type: string) {
  const state = { cancelled: false, answered: new Set<string>(), begun: new Set<string>(), beganAfterCancel: new Set<string>() };
  e.handle(type, async (_request, ctx) => {
    state.begun.add(ctx.taskId);
    if (state.cancelled || state.answered.has(ctx.taskId)) state.beganAfterCancel.add(ctx.taskId);
    await sleep(1);
  }, { retry: { attempts: 1 } });
  return state;
}

const TERMINAL = new Set(['Completed', 'Cancelled', 'Failed']);

describe('a cancel that committed first keeps the reserved row from beginning', () => {
  it('schedules.cancel(key) while its occurrences run, reserved ahead of a single worker: no cancelled occurrence begins (5 rounds)', async () => {
    const sut = open();
    for (let round = 0; round < 5; round++) {
      const key = `busy-${round}`;
      // Created an hour ago: the catch-up queues an occurrence per 10 s of the last 30 minutes at once.
      const before = sut.engine({ clock: () => HOUR_AGO });
      const scheduleId = await before.schedules.upsert({
        key, type: 'Reserved.Occurrence', every: '10s', misfire: { policy: 'ReplayAll', windowMs: 30 * 60_000, overflowCap: 1000 },
      });
      engine = sut.engine({ onError: () => undefined, pollIntervalMs: 20, clock: () => NOW, queues: { default: { concurrency: 1 } } });
      const seen = recordBegins(engine, 'Reserved.Occurrence');
      await engine.start();
      // Some have run (the engine then reserves ahead of its one worker); most wait.
      await waitFor(() => seen.begun.size >= 8, 20_000, 'the first occurrences to run', 1);
      expect(await engine.schedules.cancel(key)).toMatchObject({ status: 'Succeeded' });
      seen.cancelled = true;
      const occurrences = async () => sut.probe.rows('SELECT id, status FROM tasks WHERE parent_task_id = ?', scheduleId);
      await waitFor(async () => (await occurrences()).every((o) => TERMINAL.has(o.status as string)), 20_000, 'every occurrence to end', 10);
      const cancelled = (await occurrences()).filter((o) => o.status === 'Cancelled').map((o) => o.id as string);
      expect(cancelled.length).toBeGreaterThan(0);
      expect(cancelled.filter((id) => seen.beganAfterCancel.has(id))).toEqual([]);
      await engine.stop({ graceMs: 0 });
      engine = undefined;
    }
  }, 90_000);

  it('a definition change while the occurrences of the old one run, reserved ahead: no occurrence it cancels begins', async () => {
    const sut = open();
    const definition = { key: 'changing', type: 'Reserved.Occurrence', misfire: { policy: 'ReplayAll' as const, windowMs: 30 * 60_000, overflowCap: 1000 } };
    const before = sut.engine({ clock: () => HOUR_AGO });
    const scheduleId = await before.schedules.upsert({ ...definition, every: '10s' });
    engine = sut.engine({ onError: () => undefined, pollIntervalMs: 20, clock: () => NOW, queues: { default: { concurrency: 1 } } });
    const seen = recordBegins(engine, 'Reserved.Occurrence');
    await engine.start();
    await waitFor(() => seen.begun.size >= 8, 20_000, 'the first occurrences to run', 1);
    // Slots of 7 s: the waiting occurrences of the 10 s slots the new definition does not produce are cancelled.
    await engine.schedules.upsert({ ...definition, every: '7s' });
    seen.cancelled = true;
    const occurrences = async () => sut.probe.rows('SELECT id, status FROM tasks WHERE parent_task_id = ?', scheduleId);
    await waitFor(async () => (await occurrences()).every((o) => TERMINAL.has(o.status as string)), 30_000, 'every occurrence to end', 10);
    const cancelled = (await occurrences()).filter((o) => o.status === 'Cancelled').map((o) => o.id as string);
    expect(cancelled.length).toBeGreaterThan(0);
    expect(cancelled.filter((id) => seen.beganAfterCancel.has(id))).toEqual([]);
  }, 60_000);

  const bulkCancels: [string, (sut: StoreUnderTest) => StoreUnderTest][] = [
    ['on the engine’s own store', (sut) => sut],
    ['from another process’s handle on the same data', (sut) => {
      const other = sut.reopen();
      opened.push(other);
      return other;
    }],
  ];
  for (const [where, handle] of bulkCancels) {
    it(`a bulk cancel ${where} of rows reserved ahead: none of them begins after it answered`, async () => {
      const sut = open();
      const canceller = handle(sut);
      engine = sut.engine({ onError: () => undefined, pollIntervalMs: 20, queues: { default: { concurrency: 1 } } });
      const seen = recordBegins(engine, 'Reserved.Bulk');
      await engine.start();
      const ids = await Promise.all(Array.from({ length: 300 }, (_, i) => engine!.dispatch('Reserved.Bulk', { i })));
      await waitFor(() => seen.begun.size >= 20, 20_000, 'the first tasks to run', 1);
      const r = await canceller.store.management.applyBulkBatch({ action: 'cancel', ids, now: Date.now(), actor: 'test', statuses: ['Queued'] });
      seen.cancelled = true;
      expect(r.cancelled.length).toBeGreaterThan(0);
      await waitFor(async () => (await sut.probe.statuses(ids)).every((s) => TERMINAL.has(s as string)), 20_000, 'every task to end', 10);
      const statuses = await sut.probe.statuses(ids);
      const cancelled = ids.filter((_, i) => statuses[i] === 'Cancelled');
      expect(cancelled.length).toBe(r.cancelled.length);
      expect(cancelled.filter((id) => seen.beganAfterCancel.has(id))).toEqual([]);
    }, 60_000);
  }

  it('a cancel from another process committed while every worker is busy, then all workers free at once: no cancelled row begins (the notice of the cancel comes later)', async () => {
    const sut = open();
    const other = sut.reopen();
    opened.push(other);
    // A long budget: the rows reserved ahead stay reserved here while the workers are held.
    engine = sut.engine({ onError: () => undefined, pollIntervalMs: 20, reservationBudgetMs: 10_000, queues: { default: { concurrency: 4 } } });
    const state = { cancelled: false, begun: new Set<string>(), beganAfterCancel: new Set<string>(), held: 0 };
    let gate: Promise<void> | undefined;
    let openGate = () => {};
    engine.handle('Reserved.Held', async (_request, ctx) => {
      state.begun.add(ctx.taskId);
      if (state.cancelled) state.beganAfterCancel.add(ctx.taskId);
      if (gate === undefined) return;
      state.held++;
      await gate;
    }, { retry: { attempts: 1 } });
    await engine.start();
    const ids = await Promise.all(Array.from({ length: 400 }, (_, i) => engine!.dispatch('Reserved.Held', { i })));
    // Short runs first (the engine then reserves rows ahead of its workers), then every worker is held.
    await waitFor(() => state.begun.size >= 40, 20_000, 'the first tasks to run', 1);
    gate = new Promise((resolve) => (openGate = resolve));
    await waitFor(() => state.held === 4, 20_000, 'every worker to be held', 1);
    const reserved = await sut.probe.rows<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks WHERE status = 'Queued' AND reserved_by IS NOT NULL`);
    expect(Number(reserved[0]!.n)).toBeGreaterThan(0);
    const r = await other.store.management.applyBulkBatch({ action: 'cancel', ids, now: Date.now(), actor: 'test', statuses: ['Queued'] });
    // In the same turn as the cancel's answer: the workers free before any notice of it can arrive.
    state.cancelled = true;
    openGate();
    expect(r.cancelled.length).toBeGreaterThan(0);
    await waitFor(async () => (await sut.probe.statuses(ids)).every((s) => TERMINAL.has(s as string)), 20_000, 'every task to end', 10);
    const statuses = await sut.probe.statuses(ids);
    const cancelled = ids.filter((_, i) => statuses[i] === 'Cancelled');
    expect(cancelled.length).toBe(r.cancelled.length);
    expect(cancelled.filter((id) => state.beganAfterCancel.has(id))).toEqual([]);
  }, 60_000);

  it('engine.cancel(id) of rows reserved ahead: each answers Cancelled and none of them begins', async () => {
    const sut = open();
    engine = sut.engine({ onError: () => undefined, pollIntervalMs: 20, queues: { default: { concurrency: 1 } } });
    const seen = recordBegins(engine, 'Reserved.ById');
    await engine.start();
    const ids = await Promise.all(Array.from({ length: 300 }, (_, i) => engine!.dispatch('Reserved.ById', { i })));
    await waitFor(() => seen.begun.size >= 20, 20_000, 'the first tasks to run', 1);
    const answers = new Map<string, string>();
    for (const id of ids.slice(150)) {
      answers.set(id, await engine.cancel(id));
      seen.answered.add(id);
    }
    seen.cancelled = true;
    await waitFor(async () => (await sut.probe.statuses(ids)).every((s) => TERMINAL.has(s as string)), 20_000, 'every task to end', 10);
    const statuses = await sut.probe.statuses(ids.slice(150));
    ids.slice(150).forEach((id, i) => {
      if (answers.get(id) === 'Cancelled') expect(statuses[i]).toBe('Cancelled');
    });
    const cancelled = ids.slice(150).filter((_, i) => statuses[i] === 'Cancelled');
    expect(cancelled.length).toBeGreaterThan(0);
    expect(cancelled.filter((id) => seen.beganAfterCancel.has(id))).toEqual([]);
  }, 60_000);
});
