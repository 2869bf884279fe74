import { describe, expect, it } from 'vitest';
import { createEngine, type EngineStore, type LeaseLapse, type SvcEvent } from '../../../server/src/index.js';
import { storesPerTest } from '../../fixtures/server/storeUnderTest.js';
import { deferred } from '../../fixtures/server/engineHarness.js';
import { rowReservedBehindBlocker, runCheckAnsweredAfterClaim } from '../../fixtures/server/runCheckAnsweredAfterClaim.js';
import { waitFor } from '../../fixtures/waitFor.js';

const stores = storesPerTest();

interface Run {
  task: string;
  attempt: number;
  begin: number;
  end?: number;
}

/**
 * The lease lapses while a run waits for its retry, its first attempt's start (and failure) not
 * yet written: they wait behind a commit in flight. The store keeps that row (the engine names it
 * among the rows whose writes are still queued, EngineStore.onLeaseLost), so the engine must not
 * give the run up: a run dropped here left the row InProgress under a run nothing went on with
 * once its start landed (no instance re-queues a row of a live lease). The run goes on: its retry
 * begins once its start is written and the store confirms the row still carries it.
 *
 * Two paths: the commit in flight does not take the row again (its reservation within its hold),
 * or it does (the engine's clock moved past the hold): then the run is carried on under the new
 * reservation (ownReservationTakenAgain.test.ts), and no second run of the row begins.
 *
 * The lapse is told the engine by its store (EngineStore.onLeaseLost), as PostgreSQL's heartbeat
 * tells it; here the test's store wrapper tells it, over each backend, at the instant it must
 * fall (after the handler's first attempt failed, before the commit in flight answers).
 */

/**
 * The lease as a store wrapper tells it the engine (`parts`: lease and onLeaseLost):
 * `lapseAndRenew()` has it lapse once (the engine's lapse listener runs, as after 25 s without a
 * heartbeat) and be renewed at once.
 */
function toldLease() {
  let expired = false;
  let listener: ((lapse: LeaseLapse) => readonly string[]) | undefined;
  const told = {
    lapses: 0,
    parts: {
      lease: () => ({ failing: null, expired, lapses: told.lapses }),
      onLeaseLost(l: (lapse: LeaseLapse) => readonly string[]) {
        listener = l;
        return () => {
          listener = undefined;
        };
      },
    },
    lapseAndRenew() {
      expired = true;
      told.lapses++;
      listener?.({ sinceRenewalMs: 25_000 });
      expired = false;
    },
  };
  return told;
}
describe('a lease lapse while a run waits for its retry, its start not yet written', () => {
  it.each([
    ['not taken again by the commit in flight', false],
    ['taken again by the commit in flight (its hold over)', true],
  ] as const)('the run goes on (its row %s): its retry completes the row, no second run, nothing stale', async (_name, takenAgain) => {
    const sut = stores.open();
    // The engine's clock: moved on past the reservation's hold while the row waits for a worker.
    let aheadMs = 0;
    const runs: Run[] = [];
    const events: SvcEvent[] = [];
    const stale: string[] = [];
    const blocker = deferred();
    const firstAttemptFailed = deferred();
    const retryBackoffMs = 200;
    // The lease, as this wrapper tells it the engine.
    const lease = toldLease();
    // The commit that writes the blocker's end claims (and takes the waiting row again); before
    // it answers, the row's first attempt fails here (its start and failure queued behind this
    // commit) and then the lease lapses: the run, waiting for its retry, is given up.
    const held = runCheckAnsweredAfterClaim(sut.store, async () => {
      await firstAttemptFailed.promise;
      await new Promise((r) => setTimeout(r, 20)); // the attempt settled: the run waits for its retry
      lease.lapseAndRenew(); // renewed before the claim's answer is read
    });
    const store: EngineStore = { ...held.store, ...lease.parts };
    const engine = stores.run(createEngine({
      store, pollIntervalMs: 60_000, reservationBudgetMs: 5_000, queues: { default: { concurrency: 1 } },
      clock: () => Date.now() + aheadMs,
      onError: (err, where) => {
        if (where.startsWith('stale run')) stale.push(String(err));
      },
    }));
    engine.on('event', (e) => events.push(e));
    engine.handle('Lapse.Carry', async (request: { block?: boolean }, ctx) => {
      const run: Run = { task: ctx.taskId, attempt: ctx.attempt, begin: performance.now() };
      runs.push(run);
      if (request.block === true) await blocker.promise;
      run.end = performance.now();
      if (runs.length === 3) {
        firstAttemptFailed.resolve();
        throw new Error('the attempt before the lapse');
      }
    }, { retry: { attempts: 2, backoffMs: retryBackoffMs, backoff: 'fixed' } });
    await engine.start();
    const { blockerId, id, firstReservation } = await rowReservedBehindBlocker(engine, sut.probe, 'Lapse.Carry', () => runs.length);
    held.watch(blockerId);
    if (takenAgain) aheadMs = 60_000; // past the reservation's hold (four budgets)
    blocker.resolve();
    // Given up, the run would leave the row InProgress with no handler (or run it anew when taken again): the row below says so.
    await waitFor(async () => (await sut.probe.status(id)) === 'Completed', 8_000, 'the row completed').catch(() => undefined);
    await new Promise((r) => setTimeout(r, 400));
    const { reserved_at: reservedAt, ...row } = (await sut.probe.row<Record<string, unknown>>(
      'SELECT status, attempt, exception, abandoned_count, run_count, reserved_at FROM tasks WHERE id = ?', id,
    ))!;
    // Completed by the run's retry, its failed first attempt recorded (as after any retry).
    expect(row).toEqual({ status: 'Completed', attempt: 1, exception: expect.stringContaining('the attempt before the lapse'), abandoned_count: 0, run_count: 1 });
    // The run's start named the reservation the row carried when it was written.
    if (takenAgain) expect(Number(reservedAt)).toBeGreaterThan(firstReservation);
    else expect(Number(reservedAt)).toBe(firstReservation);
    expect(await sut.probe.audits(id)).toEqual(['Queued', 'InProgress', 'Completed']);
    expect(events.filter((e) => e.taskId === id).map((e) => e.kind)).toEqual(['Started', 'Completed']);
    expect(lease.lapses).toBe(1);
    // One run: its first attempt, then its retry (no second run of the row, nothing overlapping).
    const ofRow = runs.filter((r) => r.task === id);
    expect(ofRow.map((r) => r.attempt)).toEqual([1, 2]);
    expect(ofRow[1]!.begin).toBeGreaterThanOrEqual(ofRow[0]!.end!);
    expect(stale).toEqual([]);
    expect(engine.health().staleRunWrites).toBe(0);
  }, 30_000);
});

/**
 * The same lapse when the run's start is written and only its failed attempt is not: the failure
 * is in the commit in flight when the lease lapses. The store keeps the row (a write of its run is
 * unwritten), so the run goes on: a run dropped here left the row InProgress, its failure
 * recorded, with nothing to retry it.
 */
describe('a lease lapse while a run waits for its retry, its failed attempt not yet written', () => {
  it('the run goes on: its retry completes the row, nothing stale', async () => {
    const sut = stores.open();
    const runs: Run[] = [];
    const events: SvcEvent[] = [];
    const stale: string[] = [];
    const startWritten = deferred();
    const commitHeld = deferred();
    const commitMayGo = deferred();
    let holdNext = false;
    const lease = toldLease();
    const store: EngineStore = {
      ...sut.store,
      ...lease.parts,
      // Armed: the next commit (the one carrying the failed attempt) waits before it is sent.
      commit: async (b) => {
        if (holdNext && b.attemptFailures.length > 0) {
          holdNext = false;
          commitHeld.resolve();
          await commitMayGo.promise;
        }
        return sut.store.commit(b);
      },
    };
    const engine = stores.run(createEngine({
      store, pollIntervalMs: 60_000, queues: { default: { concurrency: 1 } },
      onError: (err, where) => {
        if (where.startsWith('stale run')) stale.push(String(err));
      },
    }));
    engine.on('event', (e) => events.push(e));
    engine.handle('Lapse.Failure', async (_request: unknown, ctx) => {
      const run: Run = { task: ctx.taskId, attempt: ctx.attempt, begin: performance.now() };
      runs.push(run);
      if (ctx.attempt === 1) {
        await startWritten.promise;
        run.end = performance.now();
        throw new Error('the attempt before the lapse');
      }
      run.end = performance.now();
    }, { retry: { attempts: 2, backoffMs: 200, backoff: 'fixed' } });
    await engine.start();
    const id = await engine.dispatch('Lapse.Failure', {});
    await waitFor(async () => (await sut.probe.status(id)) === 'InProgress' && runs.length === 1, 10_000, 'the start written');
    holdNext = true;
    startWritten.resolve();
    await commitHeld.promise;
    lease.lapseAndRenew();
    commitMayGo.resolve();
    await waitFor(async () => (await sut.probe.status(id)) === 'Completed', 8_000, 'the row completed').catch(() => undefined);
    await new Promise((r) => setTimeout(r, 400));
    const row = await sut.probe.row<Record<string, unknown>>('SELECT status, attempt, exception, abandoned_count, run_count FROM tasks WHERE id = ?', id);
    expect(row).toEqual({ status: 'Completed', attempt: 1, exception: expect.stringContaining('the attempt before the lapse'), abandoned_count: 0, run_count: 1 });
    expect(await sut.probe.audits(id)).toEqual(['Queued', 'InProgress', 'Completed']);
    expect(events.filter((e) => e.taskId === id).map((e) => e.kind)).toEqual(['Started', 'Completed']);
    expect(lease.lapses).toBe(1);
    expect(runs.map((r) => r.attempt)).toEqual([1, 2]);
    expect(stale).toEqual([]);
    expect(engine.health().staleRunWrites).toBe(0);
  }, 30_000);
});
