// @backends sqlite — what the SQLite store keeps per claimed row is its own (PostgreSQL keeps nothing per claim).
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../../server/src/index.js';
import { createSqliteEngineStore } from '../../../server/src/storage/sqlite/createSqliteEngineStore.js';
import { openStoreUnderTest, type StoreUnderTest } from '../../fixtures/server/storeUnderTest.js';
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
  it('none is left once every task ended, after cancels of reserved rows by id, in-process bulk, and another process', async () => {
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
});
