import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, type EngineStore } from '../../../server/src/index.js';
import { RateLimiter } from '../../../server/src/engine/RateLimiter.js';
import { openStoreUnderTest, type StoreUnderTest } from '../../fixtures/server/storeUnderTest.js';

const opened: StoreUnderTest[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.destroy();
});

/** The store under test behind a gate: commits wait until `open()` (a store that is slow or away). */
function gatedStore(): { store: EngineStore; open(): void; sut: StoreUnderTest } {
  const sut = openStoreUnderTest();
  opened.push(sut);
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const store: EngineStore = { ...sut.store, location: sut.store.location, commit: async (b) => {
    await gate;
    return sut.store.commit(b);
  } };
  return { store, open, sut };
}

const settledSoon = async (p: Promise<unknown>) => {
  let settled = false;
  p.then(() => (settled = true), () => (settled = true));
  await new Promise((r) => setTimeout(r, 200));
  return settled;
};

describe('bounded memory', () => {
  it('dispatch waits for room when maxUnwrittenTasks tasks wait to be written, then goes on', async () => {
    const g = gatedStore();
    const engine = createEngine({ store: g.store, maxUnwrittenTasks: 3, onError: () => undefined }).handle('Bound.Work', () => undefined);
    const first = [1, 2, 3].map((i) => engine.dispatch('Bound.Work', { i }));
    const fourth = engine.dispatch('Bound.Work', { i: 4 });
    expect(await settledSoon(fourth)).toBe(false);
    expect(engine.health().unwrittenChanges).toBe(3);
    g.open();
    const ids = await Promise.all([...first, fourth]);
    expect(await g.sut.probe.statuses(ids)).toEqual(['Queued', 'Queued', 'Queued', 'Queued']);
  });

  it("with onUnwrittenFull 'reject', a dispatch past the bound is refused with a clear error; nothing is lost", async () => {
    const g = gatedStore();
    const engine = createEngine({ store: g.store, maxUnwrittenTasks: 3, onUnwrittenFull: 'reject', onError: () => undefined })
      .handle('Bound.Work', () => undefined);
    const first = [1, 2, 3].map((i) => engine.dispatch('Bound.Work', { i }));
    await expect(engine.dispatch('Bound.Work', { i: 4 })).rejects.toThrow(
      /^dispatch: 3 tasks already wait to be written \(createEngine option "maxUnwrittenTasks"\); the store is slow or unavailable/,
    );
    g.open();
    const ids = await Promise.all(first);
    expect(await g.sut.probe.value('SELECT COUNT(*) FROM tasks')).toBe(3);
    expect(await g.sut.probe.statuses(ids)).toEqual(['Queued', 'Queued', 'Queued']);
    // Room again: the next dispatch is written.
    expect(await g.sut.probe.status(await engine.dispatch('Bound.Work', { i: 5 }))).toBe('Queued');
  });

  it('bad values of the new options are refused at creation, naming the option', () => {
    const { store } = gatedStore();
    expect(() => createEngine({ store, maxUnwrittenTasks: 0 })).toThrow('createEngine: option "maxUnwrittenTasks" must be an integer ≥ 1 (got 0)');
    expect(() => createEngine({ store, onUnwrittenFull: 'drop' as 'wait' })).toThrow('createEngine: option "onUnwrittenFull" must be one of wait, reject');
    expect(() => createEngine({ store, maxAbandoned: -1 })).toThrow('createEngine: option "maxAbandoned" must be an integer ≥ 0 (got -1)');
    expect(() => createEngine({ store, maxAbandoned: 1.5 })).toThrow(/^createEngine: option "maxAbandoned" must be an integer/);
  });

  it('rate-limit keys are forgotten once their window holds no start', () => {
    const limiter = new RateLimiter();
    const limit = { limit: 1, windowMs: 1000 };
    for (let i = 0; i < 10_000; i++) expect(limiter.take(`type\u0000key-${i}`, limit, 0)).toBe(true);
    expect(limiter.size).toBe(10_000);
    // A key still in its window keeps its budget (refused until the window passes).
    expect(limiter.take('type\u0000key-1', limit, 500)).toBe(1000);
    // Later, while other keys keep being used, the expired ones are dropped.
    for (let i = 0; i <= 10_001; i++) limiter.take('type\u0000busy', { limit: 1_000_000, windowMs: 1000 }, 2000 + i / 100);
    expect(limiter.size).toBe(1);
  });
});
