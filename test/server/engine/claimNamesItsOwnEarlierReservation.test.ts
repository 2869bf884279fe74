import { afterAll, describe, expect, it } from 'vitest';
import type { ClaimDecider, CommitBatch, DispatchStep, NewTask, RunnableTaskRow } from '../../../server/src/storage/EngineStore.js';
import { commitBatch, newTask } from '../../fixtures/server/commitBatches.js';
import { openStoreUnderTest, type StoreUnderTest } from '../../fixtures/server/storeUnderTest.js';

// A claim tells the engine which reservation of this same store the row still carried when it
// took it (its hold over): the engine may have begun a handler under that reservation, its start
// not yet written. A row that carried none, or another instance's, is named by none. Both claim
// paths of each store: all at once (no rate limit; PostgreSQL's one-statement commit) and row by
// row through a decider (a rate limit).

const TYPE = 'Claim.Names';
const HOLD_MS = 1_000;
let sut: StoreUnderTest;
let now = Date.now();
afterAll(async () => {
  await sut?.destroy();
});

const batch = (part: Partial<CommitBatch> = {}): CommitBatch => commitBatch(now, part);
const claimStep = (decide: ClaimDecider | null): DispatchStep => ({
  promoteLimit: 0, claims: [{ queue: 'default', limit: 10 }], types: [TYPE], decide, reservationMs: HOLD_MS,
});

const task = (): NewTask => newTask(TYPE, { createdAt: now });

async function claim(decide: ClaimDecider | null): Promise<RunnableTaskRow[]> {
  return (await sut.store.commit(batch({ dispatching: claimStep(decide) }))).claimed;
}

describe.each([
  ['all at once', null],
  ['row by row (a decider)', (() => true) as ClaimDecider],
] as const)('a claim %s names the reservation of this store the row carried', (_path, decide) => {
  it('none for a fresh row or another instance\'s lapsed reservation; its own earlier one, past its hold', async () => {
    sut ??= openStoreUnderTest();
    const fresh = task();
    const own = task();
    const others = task();
    now += 10;
    await sut.store.commit(batch({ insertTasks: [own] }));
    now += 10;
    const first = await claim(decide);
    expect(first.map((r) => [r.id, r.reclaimed_from])).toEqual([[own.id, null]]);
    const firstReservation = first[0]!.reserved_at;
    now += 10;
    await sut.store.commit(batch({ insertTasks: [fresh, others] }));
    await sut.probe.run(`UPDATE tasks SET reserved_by = 'another-instance', reserved_at = ? WHERE id = ?`, now - 5, others.id);
    now += HOLD_MS; // every reservation above past its hold
    const again = await claim(decide);
    const named = Object.fromEntries(again.map((r) => [r.id, r.reclaimed_from]));
    expect(named).toEqual({ [own.id]: firstReservation, [fresh.id]: null, [others.id]: null });
    expect(again.every((r) => r.reserved_at === now)).toBe(true);
    // Nothing left claimable for the next case.
    now += 10;
    await sut.store.commit(batch({ releases: again.map((r) => ({ id: r.id, reservedAt: r.reserved_at })) }));
    await sut.store.commit(batch({ cancels: again.map((r) => r.id) }));
  });
});
