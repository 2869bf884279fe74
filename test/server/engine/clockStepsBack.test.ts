import { describe, expect, it } from 'vitest';
import { storesPerTest } from '../../fixtures/server/storeUnderTest.js';
import { waitFor } from '../../fixtures/waitFor.js';

const stores = storesPerTest();

/**
 * The engine's clock may read an earlier instant than it did a moment before: on PostgreSQL it
 * is the database's clock as this host reads it, and a new reading (each heartbeat) can move the
 * host's offset by a round trip's uncertainty; a host's own clock can be set back. A task
 * dispatched to run now is due when it is written, however its commit's instant compares with the
 * instant its dispatch planned.
 */
describe('the engine clock steps back between a dispatch and its write', () => {
  it('a task dispatched to run now (with and without a key) still runs, once', async () => {
    const sut = stores.open();
    let stepBackMs = 0;
    const ran: string[] = [];
    const engine = stores.run(sut.engine({ pollIntervalMs: 20, clock: () => Date.now() - stepBackMs, onError: () => undefined }));
    engine.handle('Clock.Back', (_req, ctx) => {
      ran.push(ctx.taskId);
    });
    await engine.start();
    // The dispatches plan their instant now; their commit (a later turn) reads the clock 50 ms earlier.
    const plain = engine.dispatch('Clock.Back', {});
    const keyed = engine.dispatch('Clock.Back', {}, { taskKey: 'clock-steps-back' });
    stepBackMs = 50;
    const ids = [await plain, await keyed];
    await waitFor(async () => (await Promise.all(ids.map((id) => sut.probe.status(id)))).every((s) => s === 'Completed'), 5_000, 'both tasks completed');
    expect(ran.sort()).toEqual([...ids].sort());
  });
});
