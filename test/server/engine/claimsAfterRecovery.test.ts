import { describe, expect, it } from 'vitest';
import { createEngine, type EngineStore } from '../../../server/src/index.js';
import { storesPerTest } from '../../fixtures/server/storeUnderTest.js';
import { deferred } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const stores = storesPerTest();

/**
 * start() recovers the store's earlier runs before the engine claims anything: a task dispatched
 * while the recovery is slow runs once, after it, and is never taken for an abandoned run.
 */
describe('start: recovery before the first claim', () => {
  it('a task dispatched while recovery is in flight waits for it, then runs once (no abandoned run counted)', async () => {
    const sut = stores.open();
    const recoverMayGo = deferred();
    const recovered = deferred();
    const store: EngineStore = {
      ...sut.store,
      recover: async (input) => {
        await recoverMayGo.promise;
        const n = await sut.store.recover(input);
        recovered.resolve();
        return n;
      },
    };
    let calls = 0;
    const engine = stores.run(createEngine({ store, pollIntervalMs: 20, onError: () => undefined }));
    engine.handle('Start.Recovery', async () => {
      calls++;
      await recovered.promise;
      await sleep(20);
    });
    const started = engine.start();
    expect(engine.isRunning()).toBe(false);
    await sleep(30);
    const id = await engine.dispatch('Start.Recovery', {});
    await sleep(200);
    expect(await sut.probe.status(id)).toBe('Queued');
    expect(calls).toBe(0);
    recoverMayGo.resolve();
    await started;
    expect(engine.isRunning()).toBe(true);
    await waitFor(async () => (await sut.probe.status(id)) === 'Completed', 10_000, 'the task to complete');
    expect(calls).toBe(1);
    expect((await sut.probe.task(id))?.abandoned_count).toBe(0);
    expect(await sut.probe.audits(id)).toEqual(['Queued', 'InProgress', 'Completed']);
  }, 20_000);

  it('stop() during start() waits for it and then stops the engine', async () => {
    const sut = stores.open();
    const recoverMayGo = deferred();
    const store: EngineStore = {
      ...sut.store,
      recover: async (input) => {
        await recoverMayGo.promise;
        return sut.store.recover(input);
      },
    };
    const engine = stores.run(createEngine({ store, pollIntervalMs: 20, onError: () => undefined }).handle('Start.Stop', () => undefined));
    const started = engine.start();
    const stopped = engine.stop({ graceMs: 0 });
    recoverMayGo.resolve();
    await started;
    await stopped;
    expect(engine.isRunning()).toBe(false);
  });
});
