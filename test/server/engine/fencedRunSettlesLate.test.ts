import { describe, expect, it } from 'vitest';
import { createEngine, type EngineStore } from '../../../server/src/index.js';
import { storesPerTest } from '../../fixtures/server/storeUnderTest.js';
import { deferred } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

const stores = storesPerTest();

/**
 * A run is its own: the handler of a fenced run (its row cancelled before its start was written)
 * that ignores its abort and settles only after the same task runs again here ends nothing of the
 * new run, which cancel and stop still reach.
 */
describe('a fenced handler that settles late', () => {
  it('leaves the newer run of its task alone: cancel answers Cancelling, the new run ends Cancelled', async () => {
    const sut = stores.open();
    let taskId = '';
    const startHeld = deferred();
    const startWaiting = deferred();
    let held = false;
    // The first start of the task waits for the test (its handler has begun meanwhile).
    const store: EngineStore = {
      ...sut.store,
      commit: async (b) => {
        if (!held && taskId !== '' && (b.startRuns ?? []).some((s) => s.id === taskId)) {
          held = true;
          startWaiting.resolve();
          await startHeld.promise;
        }
        return sut.store.commit(b);
      },
    };
    const firstSettles = deferred();
    const secondAborted = deferred();
    let calls = 0;
    const engine = stores.run(createEngine({ store, pollIntervalMs: 20, onError: () => undefined }));
    engine.handle('Late.Settle', async (_request, ctx) => {
      calls++;
      if (calls === 1) {
        await firstSettles.promise; // ignores its abort
        return;
      }
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
      secondAborted.resolve();
      throw ctx.signal.reason;
    }, { retry: { attempts: 1 } });
    await engine.start();
    taskId = await engine.dispatch('Late.Settle', {});
    await startWaiting.promise;
    // Cancelled by a writer the engine does not hear from, before the start is written: the start is fenced.
    const cancel = await sut.store.management.applyBulkBatch({ action: 'cancel', ids: [taskId], now: Date.now(), actor: 'test' });
    expect(cancel.succeeded).toBe(1);
    startHeld.resolve();
    await waitFor(() => engine.health().staleRunWrites === 1, 10_000, 'the start to be fenced');
    // Queued again; the engine runs it anew while the first handler still has not settled.
    expect((await sut.store.management.applyBulkBatch({ action: 'retry', ids: [taskId], now: Date.now(), actor: 'test' })).succeeded).toBe(1);
    await waitFor(async () => calls === 2 && (await sut.probe.status(taskId)) === 'InProgress', 10_000, 'the second run to start');
    firstSettles.resolve();
    await new Promise((r) => setTimeout(r, 50));
    expect(await engine.cancel(taskId)).toBe('Cancelling');
    await secondAborted.promise;
    await waitFor(async () => (await sut.probe.status(taskId)) === 'Cancelled', 10_000, 'the second run to end Cancelled');
    expect(calls).toBe(2);
  }, 30_000);
});
