// @backends sqlite — what the SQLite store keeps per claimed row is its own (PostgreSQL keeps nothing per claim).
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../../server/src/index.js';
import { createSqliteEngineStore } from '../../../server/src/storage/sqlite/createSqliteEngineStore.js';
import { openStoreUnderTest, type StoreUnderTest } from '../../fixtures/server/storeUnderTest.js';
import { deferred } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const opened: StoreUnderTest[] = [];
let engine: Engine | undefined;
afterEach(async () => {
  await engine?.stop({ graceMs: 0 });
  engine = undefined;
  for (const s of opened.splice(0).reverse()) await s.destroy();
});

const TERMINAL = new Set(['Completed', 'Cancelled', 'Failed']);

/**
 * The store remembers each row it claims until the run ends or the reservation is dropped. Rows
 * reserved ahead and then cancelled (by engine.cancel, by a bulk cancel of this process, by a
 * schedule cancel, by another process) never run: once every task has ended, nothing is left.
 */
describe('claimed rows the SQLite store remembers', () => {
  it('none is left once every task ended, after cancels of waiting rows by id, in-process bulk, and another process while others run', async () => {
    const sut = openStoreUnderTest();
    opened.push(sut);
    const other = sut.reopen();
    opened.push(other);
    const store = createSqliteEngineStore(sut.sqlite!);
    engine = createEngine({ store, pollIntervalMs: 20, queues: { default: { concurrency: 1 } }, onError: () => undefined });
    let begun = 0;
    engine.handle('Held.Row', async () => {
      begun++;
      await sleep(1);
    });
    await engine.start();
    const ids = await Promise.all(Array.from({ length: 400 }, (_, i) => engine!.dispatch('Held.Row', { i })));
    await waitFor(() => begun >= 20, 20_000, 'the first tasks to run', 1);
    // By id (the engine forgets the reservation, then the commit cancels the row).
    for (const id of ids.slice(300)) await engine.cancel(id);
    // A bulk cancel of this process (its Cancelled events make the engine forget the rows).
    const bulk = engine.tasks.startBulk({ action: 'cancel', ids: ids.slice(200, 300), actor: 'test' });
    await engine.tasks.bulkIdle();
    expect(engine.tasks.bulkStatus(bulk.operationId)?.state).toBe('Completed');
    // Another process (the check before the handler would begin finds them cancelled).
    await other.store.management.applyBulkBatch({ action: 'cancel', ids: ids.slice(100, 200), now: Date.now(), actor: 'other' });
    await waitFor(async () => (await sut.probe.statuses(ids)).every((s) => TERMINAL.has(s as string)), 30_000, 'every task to end', 10);
    const statuses = await sut.probe.statuses(ids);
    expect(statuses.filter((s) => s === 'Cancelled').length).toBeGreaterThan(0);
    await waitFor(() => store.rowsHeld === 0, 5_000, `no claimed row to be left (${store.rowsHeld} left)`);
  }, 60_000);

  it('none is left after cancels of rows while they wait reserved ahead of the worker (by id, in-process bulk, another process)', async () => {
    const sut = openStoreUnderTest();
    opened.push(sut);
    const other = sut.reopen();
    opened.push(other);
    const store = createSqliteEngineStore(sut.sqlite!);
    // A long budget: the rows stay reserved (not handed back) while the test cancels them.
    engine = createEngine({ store, pollIntervalMs: 20, reservationBudgetMs: 10_000, queues: { default: { concurrency: 1 } }, onError: () => undefined });
    const blocker = deferred();
    let begun = 0;
    engine.handle('Held.Ahead', async (request: { block?: boolean }) => {
      begun++;
      if (request.block === true) await blocker.promise;
    });
    await engine.start();
    // A first run gives the type an estimate: the queue then reserves rows ahead of its one worker.
    const warmUp = await engine.dispatch('Held.Ahead', {});
    await waitFor(async () => (await sut.probe.status(warmUp)) === 'Completed', 10_000, 'the warm-up run');
    const blockerId = await engine.dispatch('Held.Ahead', { block: true });
    await waitFor(() => begun === 2, 10_000, 'the blocker running');
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => engine!.dispatch('Held.Ahead', { i })));
    const reservedNow = async () => Number(await sut.probe.value(`SELECT COUNT(*) FROM tasks WHERE status = 'Queued' AND reserved_by IS NOT NULL`));
    await waitFor(async () => (await reservedNow()) === ids.length, 10_000, 'every row reserved behind the blocker');
    expect(store.rowsHeld).toBe(ids.length + 1);
    // By id (the engine forgets the reservation, then the commit cancels the row).
    for (const id of ids.slice(0, 4)) expect(await engine.cancel(id)).toBe('Cancelled');
    // A bulk cancel of this process.
    const bulk = engine.tasks.startBulk({ action: 'cancel', ids: ids.slice(4, 8), actor: 'test' });
    await engine.tasks.bulkIdle();
    expect(engine.tasks.bulkStatus(bulk.operationId)?.state).toBe('Completed');
    // Another process: the check before the handler would begin finds them cancelled.
    await other.store.management.applyBulkBatch({ action: 'cancel', ids: ids.slice(8), now: Date.now(), actor: 'other' });
    expect(await sut.probe.statuses(ids)).toEqual(ids.map(() => 'Cancelled'));
    blocker.resolve();
    await waitFor(async () => (await sut.probe.status(blockerId)) === 'Completed', 10_000, 'the blocker to end');
    await waitFor(() => store.rowsHeld === 0, 5_000, 'no claimed row to be left').catch(() => undefined);
    expect(store.rowsHeld).toBe(0);
    expect(begun).toBe(2);
  }, 60_000);
});
