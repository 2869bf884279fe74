import { afterEach, describe, expect, it } from 'vitest';
import { claimAheadFactor, MAX_CLAIM_AHEAD } from '../../../server/src/engine/RunLifecycle.js';
import type { Engine } from '../../../server/src/index.js';
import { readModelsAndRebuild } from '../../fixtures/server/readModelsAndRebuild.js';
import { closeAll, deferred, harness, sleep, type Harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

const others: { engine: Engine; close: () => Promise<void> }[] = [];
afterEach(async () => {
  for (const o of others.splice(0)) {
    await o.engine.stop({ graceMs: 0 });
    await o.close();
  }
  await closeAll();
});

/** Runs `n` short tasks to completion so that the queue knows its handlers are short. */
async function warmUp(h: Harness, n = 20): Promise<void> {
  const ids = await Promise.all(Array.from({ length: n }, (_, i) => h.engine.dispatch('A.Fast', { warm: i })));
  await waitFor(async () => (await h.statuses(ids)).every((s) => s === 'Completed'), 10_000, 'warm-up tasks Completed');
}

/** One worker whose queue is known to run short handlers; `A.Fast` records its `n`, `A.Block` runs `block`. */
async function warmOneWorker(block: () => unknown, reservationBudgetMs = 2000): Promise<{ h: Harness; ran: number[] }> {
  const h = harness({ queues: { default: { concurrency: 1 } }, reservationBudgetMs });
  const ran: number[] = [];
  h.engine.handle('A.Fast', (req: { n?: number }) => {
    if (req.n !== undefined) ran.push(req.n);
  });
  h.engine.handle('A.Block', block);
  await h.engine.start();
  await warmUp(h);
  return { h, ran };
}

/** Dispatches a blocking task and short ones behind it; returns their ids once the blocking task has Started. */
async function behindABlock(h: Harness, ns: number[]): Promise<[string, ...string[]]> {
  const [block, ...fast] = await Promise.all([h.engine.dispatch('A.Block', {}), ...ns.map((n) => h.engine.dispatch('A.Fast', { n }))]);
  await waitFor(() => h.events.some((e) => e.kind === 'Started' && e.taskId === block), 5000, 'the blocking task Started');
  return [block!, ...fast];
}

/** An engine in another process's place: its own handle on the same store. */
function secondEngine(h: Harness, ran?: number[]): Engine {
  const sut = h.sut.reopen();
  const engine = sut.engine({ pollIntervalMs: 20 });
  engine.handle('A.Fast', (req: { n?: number }) => {
    if (req.n !== undefined) ran?.push(req.n);
  });
  engine.handle('A.Block', () => undefined);
  others.push({ engine, close: () => sut.close() });
  return engine;
}

describe('reservations: short handlers take rows ahead of their workers, and those rows stay Queued', () => {
  it('rows taken ahead stay Queued (reserved, no Started event), then run once each, in order', async () => {
    const gate = deferred();
    const { h, ran } = await warmOneWorker(() => gate.promise);
    const [block, ...fast] = await behindABlock(h, [1, 2, 3, 4, 5]);
    // The only worker is busy: the rows behind it are reserved by this engine, not running.
    const first = await h.row(fast[0]!);
    expect(first).toMatchObject({ status: 'Queued', started_at: null });
    expect(first.reserved_by).toEqual(expect.any(String));
    expect(Number(first.reserved_at)).toBeGreaterThan(0);
    expect(await h.status(block)).toBe('InProgress');
    expect(h.events.filter((e) => e.kind === 'Started' && fast.includes(e.taskId))).toEqual([]);
    gate.resolve();
    await waitFor(async () => (await h.statuses([block, ...fast])).every((s) => s === 'Completed'), 5000, 'every task Completed');
    // Events follow their commit (on a later tick with a deferred store): wait for the last one.
    await waitFor(() => fast.every((id) => h.events.some((e) => e.kind === 'Completed' && e.taskId === id)), 5000, 'every Completed event');
    expect(ran).toEqual([1, 2, 3, 4, 5]);
    for (const id of fast) {
      expect(await h.audits(id)).toEqual(['Queued', 'InProgress', 'Completed']);
      expect(h.events.filter((e) => e.taskId === id).map((e) => e.kind)).toEqual(['Started', 'Completed']);
      const row = await h.row(id);
      // Started when its handler began, after the block's end: not at the reservation.
      expect(Number(row.started_at)).toBeGreaterThan(Number(first.reserved_at));
      expect(row).toMatchObject({ reserved_by: null });
    }
  });

  it('cancelling a reserved row here: Cancelled like any Queued row, its handler never runs', async () => {
    const gate = deferred();
    const { h, ran } = await warmOneWorker(() => gate.promise);
    const [block, first, second] = await behindABlock(h, [1, 2]);
    expect(await h.status(first!)).toBe('Queued');
    expect(await h.engine.cancel(first!)).toBe('Cancelled');
    expect(await h.status(first!)).toBe('Cancelled');
    gate.resolve();
    await waitFor(async () => (await h.statuses([block, second!])).every((s) => s === 'Completed'), 5000, 'the others Completed');
    expect(ran).toEqual([2]);
    expect(await h.audits(first!)).toEqual(['Queued', 'Cancelled']);
    await waitFor(() => h.events.some((e) => e.kind === 'Cancelled' && e.taskId === first), 5000, 'the Cancelled event');
    expect(h.events.filter((e) => e.taskId === first).map((e) => e.kind)).toEqual(['Cancelled']);
    expect(h.engine.health().staleRunWrites).toBe(0);
  });

  it('cancelling a reserved row from another process: Cancelled there, and it never runs here', async () => {
    const gate = deferred();
    const { h, ran } = await warmOneWorker(() => gate.promise);
    const [block, first, second] = await behindABlock(h, [1, 2]);
    expect((await h.row(first!)).reserved_by).toEqual(expect.any(String));
    const other = secondEngine(h);
    expect(await other.cancel(first!)).toBe('Cancelled');
    await sleep(100); // the owner hears of it (PostgreSQL NOTIFY), or reads it before the handler would begin (SQLite)
    gate.resolve();
    await waitFor(async () => (await h.statuses([block, second!])).every((s) => s === 'Completed'), 5000, 'the others Completed');
    expect(ran).toEqual([2]);
    expect(await h.status(first!)).toBe('Cancelled');
    expect(await h.audits(first!)).toEqual(['Queued', 'Cancelled']);
    expect(h.events.filter((e) => e.taskId === first)).toEqual([]);
  });

  it('stopping hands reserved rows back at once (Queued, not ServiceStopped); another engine runs each once', async () => {
    const gate = deferred();
    const { h, ran } = await warmOneWorker(() => gate.promise);
    const [block, first, second] = await behindABlock(h, [1, 2]);
    await h.engine.stop({ graceMs: 0 });
    expect(await h.statuses([block, first!, second!])).toEqual(['ServiceStopped', 'Queued', 'Queued']);
    expect(await h.row(first!)).toMatchObject({ reserved_by: null, reserved_at: null });
    expect(await h.audits(first!)).toEqual(['Queued']);
    const otherRan: number[] = [];
    const other = secondEngine(h, otherRan);
    await other.start();
    await waitFor(async () => (await h.statuses([first!, second!])).every((s) => s === 'Completed'), 5000, 'the handed-back rows Completed');
    expect(otherRan).toEqual([1, 2]);
    expect(ran).toEqual([]);
    expect(await h.audits(first!)).toEqual(['Queued', 'InProgress', 'Completed']);
    gate.resolve();
  });

  it('after a stop that interrupts a running run and reserved ones, the read models equal a recomputation', async () => {
    const gate = deferred();
    const { h } = await warmOneWorker(() => gate.promise);
    const [block, first, second] = await behindABlock(h, [1, 2]);
    expect(await h.row(first!)).toMatchObject({ status: 'Queued', reserved_by: expect.any(String) });
    await h.engine.stop({ graceMs: 0 });
    expect(await h.statuses([block, first!, second!])).toEqual(['ServiceStopped', 'Queued', 'Queued']);
    const { live, rebuilt } = await readModelsAndRebuild(h.sut);
    expect(rebuilt).toEqual(live);
    gate.resolve();
  });

  it('a reserved row not started within the budget is handed back to Queued for any engine', async () => {
    const gate = deferred();
    const { h, ran } = await warmOneWorker(() => gate.promise, 150);
    const [block, first, second] = await behindABlock(h, [1, 2]);
    await waitFor(async () => (await h.row(first!)).reserved_by === null && (await h.row(second!)).reserved_by === null, 3000, 'the reservations handed back');
    // The block runs past the budget: nothing is reserved again behind it.
    await sleep(200);
    expect(await h.row(first!)).toMatchObject({ status: 'Queued', reserved_by: null });
    const other = secondEngine(h);
    await other.start();
    await waitFor(async () => (await h.statuses([first!, second!])).every((s) => s === 'Completed'), 5000, 'another engine ran them');
    expect(ran).toEqual([]);
    gate.resolve();
    await waitFor(async () => (await h.status(block)) === 'Completed', 5000, 'the block Completed');
  });

  it('a slow attempt stops reservations at once; faster ones bring them back', async () => {
    const h = harness({ queues: { default: { concurrency: 1 } }, reservationBudgetMs: 1000 });
    let gate = deferred();
    h.engine.handle('A.Var', (req: { ms: number }) => sleep(req.ms));
    h.engine.handle('A.Block', () => gate.promise);
    await h.engine.start();
    const run = async (ms: number) => {
      const id = await h.engine.dispatch('A.Var', { ms });
      await waitFor(async () => (await h.status(id)) === 'Completed', 5000, 'A.Var Completed');
    };
    const reservedBehindABlock = async (): Promise<boolean> => {
      const [block, next] = await Promise.all([h.engine.dispatch('A.Block', {}), h.engine.dispatch('A.Var', { ms: 0 })]);
      await waitFor(() => h.events.some((e) => e.kind === 'Started' && e.taskId === block), 5000, 'the block Started');
      const reserved = (await h.row(next!)).reserved_by !== null;
      gate.resolve();
      await waitFor(async () => (await h.statuses([block!, next!])).every((s) => s === 'Completed'), 5000, 'both Completed');
      gate = deferred();
      return reserved;
    };
    for (let i = 0; i < 5; i++) await run(0);
    expect(await reservedBehindABlock()).toBe(true);
    await run(1200); // longer than the budget
    expect(await reservedBehindABlock()).toBe(false);
    for (let i = 0; i < 5; i++) await run(0);
    expect(await reservedBehindABlock()).toBe(true);
  });

  it("the store's InProgress rows are the handlers running", async () => {
    const h = harness({ queues: { default: { concurrency: 1 } } });
    const seen: number[] = [];
    let ids: string[] = [];
    h.engine.handle('A.Short', async () => {
      await sleep(5);
      // While this handler runs, how many of the rows are InProgress (this one included, once its start is written)?
      if (ids.length > 0) seen.push((await h.statuses(ids)).filter((s) => s === 'InProgress').length);
    });
    await h.engine.start();
    const pending = Array.from({ length: 12 }, (_, i) => h.engine.dispatch('A.Short', { i }));
    ids = await Promise.all(pending);
    await waitFor(async () => (await h.statuses(ids)).every((s) => s === 'Completed'), 10_000, 'every task Completed');
    expect(seen.length).toBeGreaterThan(5);
    expect(Math.max(...seen)).toBeLessThanOrEqual(1);
  });

  it('the reservation depth follows the estimate of handler time and the budget', () => {
    expect(claimAheadFactor(null, 250)).toBe(1);
    expect(claimAheadFactor(300, 250)).toBe(1);
    expect(claimAheadFactor(100, 250)).toBe(3);
    expect(claimAheadFactor(0.01, 250)).toBe(MAX_CLAIM_AHEAD);
    expect(claimAheadFactor(0, 250)).toBe(MAX_CLAIM_AHEAD);
  });
});
