import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../server/src/index.js';
import { storesPerTest } from '../../fixtures/server/storeUnderTest.js';
import { deferred } from '../../fixtures/server/engineHarness.js';
import { rowReservedBehindBlocker, runCheckAnsweredAfterClaim } from '../../fixtures/server/runCheckAnsweredAfterClaim.js';
import { waitFor } from '../../fixtures/waitFor.js';

const stores = storesPerTest();

interface Run {
  task: string;
  begin: number;
  end?: number;
}

/**
 * A claim may take a row reserved by its own engine once the reservation is past its hold (the
 * engine's clock moved on: a stalled process, a slow commit). When that claim's commit was in
 * flight as a handler began on the row here under the earlier reservation (its start waiting for
 * the next commit), the claim hands the engine a row it already runs: the run goes on under the
 * new reservation, which its start names, and no second handler begins, whether the first is
 * still running or already ended (its end queued behind its start).
 */
describe('a row this engine runs, claimed again by its own claim before its start is written', () => {
  it.each([
    ['still running', 'running'],
    ['already ended', 'ended'],
  ] as const)('runs once, its handler %s when the claim answers: the start names the new reservation', async (_name, answerWhen) => {
    const sut = stores.open();
    // The engine's clock: moved on past the reservation's hold while the row waits for a worker
    // (as a new reading of the database's clock, or a stalled process, would).
    let aheadMs = 0;
    const runs: Run[] = [];
    const blocker = deferred();
    const rowBegan = deferred();
    const rowEnded = deferred();
    // The commit that writes the blocker's end claims (and takes the waiting row again); its
    // answer comes once the waiting row's handler has begun (or ended) here.
    const { store, watch } = runCheckAnsweredAfterClaim(sut.store, () => (answerWhen === 'running' ? rowBegan.promise : rowEnded.promise));
    const engine = stores.run(createEngine({
      store, pollIntervalMs: 60_000, reservationBudgetMs: 5_000, queues: { default: { concurrency: 1 } },
      clock: () => Date.now() + aheadMs, onError: () => undefined,
    }));
    engine.handle('Retake.Work', async (request: { block?: boolean }, ctx) => {
      const run: Run = { task: ctx.taskId, begin: performance.now() };
      runs.push(run);
      if (request.block === true) await blocker.promise;
      else if (runs.length > 2) {
        rowBegan.resolve();
        await new Promise((r) => setTimeout(r, answerWhen === 'running' ? 300 : 0));
      }
      run.end = performance.now();
      if (runs.length > 2) setImmediate(() => rowEnded.resolve());
    });
    await engine.start();
    const { blockerId, id, firstReservation } = await rowReservedBehindBlocker(engine, sut.probe, 'Retake.Work', () => runs.length);
    watch(blockerId);
    aheadMs = 60_000; // past the reservation's hold (four budgets)
    blocker.resolve();
    await waitFor(async () => (await sut.probe.status(id)) === 'Completed', 10_000, 'the row completed');
    await new Promise((r) => setTimeout(r, 400));
    const ofRow = runs.filter((r) => r.task === id);
    expect(ofRow).toHaveLength(1);
    expect(engine.health().staleRunWrites).toBe(0);
    const { reserved_at: reservedAt, ...row } = (await sut.probe.row<Record<string, unknown>>('SELECT status, abandoned_count, run_count, reserved_at FROM tasks WHERE id = ?', id))!;
    expect(row).toEqual({ status: 'Completed', abandoned_count: 0, run_count: 1 });
    // The row was taken again (its start kept the later reservation's instant), not started under its first one.
    expect(Number(reservedAt)).toBeGreaterThan(firstReservation);
  }, 30_000);
});
