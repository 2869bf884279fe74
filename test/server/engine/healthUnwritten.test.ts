import { describe, expect, it } from 'vitest';
import { createEngine, type CommitBatch, type EngineStore } from '../../../server/src/index.js';
import { openStoreUnderTest } from '../../fixtures/server/storeUnderTest.js';
import { waitFor } from '../../fixtures/waitFor.js';

describe('engine.health(): what waits to be written', () => {
  it('counts the commit in flight: unwrittenChanges and oldestUnwrittenMs describe the same changes', async () => {
    const sut = openStoreUnderTest();
    const inner = sut.store;
    // A store whose commits wait at a gate while it is closed: the batch stays in flight.
    let gate: Promise<void> | null = null;
    let open = () => undefined as void;
    let heldInserts = 0;
    const store: EngineStore = {
      ...inner,
      commit: async (batch: CommitBatch) => {
        if (gate !== null) {
          heldInserts += batch.insertTasks.length;
          await gate;
        }
        return inner.commit(batch);
      },
    };
    let now = Date.UTC(2026, 10, 23, 12);
    const engine = createEngine({ store, clock: () => now, pollIntervalMs: 1000 });
    engine.handle('Health.Job', () => undefined);
    try {
      await engine.start();
      expect(engine.health()).toEqual({ status: 'ok', unwrittenChanges: 0, oldestUnwrittenMs: 0, staleRunWrites: 0 });

      gate = new Promise<void>((resolve) => (open = resolve));
      const first = engine.dispatch('Health.Job', { n: 1 });
      await waitFor(() => heldInserts === 1, 5000, 'the dispatch handed to the store');
      now += 250;
      // In flight: one change, 250 ms old.
      expect(engine.health()).toMatchObject({ status: 'ok', unwrittenChanges: 1, oldestUnwrittenMs: 250 });

      const second = engine.dispatch('Health.Job', { n: 2 });
      now += 100;
      // One in flight (350 ms old) and one queued behind it (100 ms old): two changes, the oldest 350 ms.
      expect(engine.health()).toMatchObject({ unwrittenChanges: 2, oldestUnwrittenMs: 350 });

      gate = null;
      open();
      const ids = await Promise.all([first, second]);
      await waitFor(async () => (await sut.probe.statuses(ids)).every((s) => s === 'Completed'), 5000, 'both Completed');
      await waitFor(() => engine.health().unwrittenChanges === 0, 3000, 'everything written');
      expect(engine.health()).toEqual({ status: 'ok', unwrittenChanges: 0, oldestUnwrittenMs: 0, staleRunWrites: 0 });
    } finally {
      gate = null;
      open();
      await engine.stop({ graceMs: 0 });
      await sut.destroy();
    }
  });
});
