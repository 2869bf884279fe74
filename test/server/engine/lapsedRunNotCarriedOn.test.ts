import { describe, expect, it } from 'vitest';
import { createEngine, type EngineStore, type LeaseLapse, type RunCheckAnswer, type SvcEvent } from '../../../server/src/index.js';
import { storesPerTest } from '../../fixtures/server/storeUnderTest.js';
import { deferred } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

const stores = storesPerTest();

interface Run {
  task: string;
  attempt: number;
  begin: number;
  end?: number;
}

/**
 * A claim may take a row reserved by its own engine once the reservation is past its hold, and
 * a handler may have begun here under that reservation, its start not written yet: that run is
 * carried on under the new reservation (ownReservationTakenAgain.test.ts). A run that the
 * engine gave up meanwhile, because its lease lapsed while the run waited for its retry, is not
 * carried on: nothing will run it any more here, so carrying its start on would leave the row
 * InProgress with no handler. Its stale start fails, and the row runs anew under the claim that
 * took it: the given-up attempt's failure is not recorded, and the row's one run is the new one.
 *
 * The lapse is told the engine by its store (EngineStore.onLeaseLost), as PostgreSQL's heartbeat
 * tells it; here the test's store wrapper tells it, over each backend, at the instant it must
 * fall (after the handler's first attempt failed, before the claim that took the row answers).
 */
describe('a run given up by a lease lapse is not carried on by a claim of its row from its own reservation', () => {
  it('the row runs anew: one Completed run, the given-up attempt not recorded, one Started and one Completed event', async () => {
    const sut = stores.open();
    // The engine's clock: moved on past the reservation's hold while the row waits for a worker.
    let aheadMs = 0;
    const runs: Run[] = [];
    const events: SvcEvent[] = [];
    const stale: string[] = [];
    const blocker = deferred();
    let watched = { blockerId: '', armed: false };
    const confirmAnswered = deferred<RunCheckAnswer>();
    const confirmMayAnswer = deferred();
    const firstAttemptFailed = deferred();
    // The lease, as this wrapper tells it the engine.
    let lapsed = false;
    let lapses = 0;
    let lapseListener: ((lapse: LeaseLapse) => readonly string[]) | undefined;
    const store: EngineStore = {
      ...sut.store,
      lease: () => ({ failing: null, expired: lapsed, lapses }),
      onLeaseLost(listener) {
        lapseListener = listener;
        return () => {
          lapseListener = undefined;
        };
      },
      // The run check of the waiting row is read at once (the row is still reserved under its
      // first reservation) and answered only once the next claim has taken the row again.
      confirmRuns: (checks) => {
        const answer = sut.store.confirmRuns?.(checks) ?? checks.map(() => true);
        if (!watched.armed) return answer;
        return (async () => {
          confirmAnswered.resolve(await answer);
          await confirmMayAnswer.promise;
          return answer;
        })();
      },
      // The commit that writes the blocker's end claims (and takes the waiting row again); before
      // it answers, the row's first attempt fails here (its start and failure queued behind this
      // commit) and then the lease lapses: the run, waiting for its retry, is given up.
      commit: async (b) => {
        const ending = watched.armed && b.completeRuns.some((r) => r.id === watched.blockerId);
        if (ending) await confirmAnswered.promise;
        const out = await sut.store.commit(b);
        if (ending) {
          watched.armed = false;
          confirmMayAnswer.resolve();
          await firstAttemptFailed.promise;
          await new Promise((r) => setTimeout(r, 20)); // the attempt settled: the run waits for its retry
          lapsed = true;
          lapses++;
          lapseListener?.({ sinceRenewalMs: 25_000 });
          lapsed = false; // renewed before the claim's answer is read
        }
        return out;
      },
    };
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
        throw new Error('the attempt the lapse gives up');
      }
    }, { retry: { attempts: 2, backoffMs: 60_000, backoff: 'fixed' } });
    await engine.start();
    // A first run gives the type an estimate: the queue then reserves rows ahead of its one worker.
    const warmUp = await engine.dispatch('Lapse.Carry', {});
    await waitFor(async () => (await sut.probe.status(warmUp)) === 'Completed', 10_000, 'the warm-up run');
    const [blockerId, id] = await Promise.all([engine.dispatch('Lapse.Carry', { block: true }), engine.dispatch('Lapse.Carry', {})]);
    let firstReservation = 0;
    await waitFor(async () => {
      const row = await sut.probe.row<{ reserved_by: string | null; reserved_at: number | null }>('SELECT reserved_by, reserved_at FROM tasks WHERE id = ?', id);
      firstReservation = Number(row?.reserved_at ?? 0);
      return runs.length === 2 && row?.reserved_by != null;
    }, 10_000, 'the blocker running, the other row reserved behind it');
    watched = { blockerId: blockerId!, armed: true };
    aheadMs = 60_000; // past the reservation's hold (four budgets)
    blocker.resolve();
    // Carried on, the given-up run would leave the row InProgress with no handler: the row below says so.
    await waitFor(async () => (await sut.probe.status(id!)) === 'Completed', 8_000, 'the row completed').catch(() => undefined);
    await new Promise((r) => setTimeout(r, 400));
    const { reserved_at: reservedAt, ...row } = (await sut.probe.row<Record<string, unknown>>(
      'SELECT status, attempt, exception, abandoned_count, run_count, reserved_at FROM tasks WHERE id = ?', id,
    ))!;
    // Completed by the new run; no failed attempt recorded (attempt counts them), no exception.
    expect(row).toEqual({ status: 'Completed', attempt: 0, exception: null, abandoned_count: 0, run_count: 1 });
    // The new run's start named the claim's reservation, not the given-up run's.
    expect(Number(reservedAt)).toBeGreaterThan(firstReservation);
    expect(await sut.probe.audits(id!)).toEqual(['Queued', 'InProgress', 'Completed']);
    expect(events.filter((e) => e.taskId === id).map((e) => e.kind)).toEqual(['Started', 'Completed']);
    expect(lapses).toBe(1);
    // The given-up attempt, then the row's run anew (its first attempt again: the failure was not recorded).
    expect(runs.filter((r) => r.task === id).map((r) => r.attempt)).toEqual([1, 1]);
    // The given-up run's writes were refused (fenced) and counted.
    expect(stale.filter((m) => m.includes(id!)).length).toBeGreaterThanOrEqual(1);
    expect(engine.health().staleRunWrites).toBe(stale.length);
  }, 30_000);
});
