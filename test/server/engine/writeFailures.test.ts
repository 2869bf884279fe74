// @backends sqlite deferred — faults injected with SQLite triggers.
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../../server/src/index.js';
import { failStatusAudit, failTaskWrite, isInjected, snapshotStore, snapshotTask, type Fault } from '../../fixtures/faults.js';
import { closeAll, deferred, harness, type Harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

// A state change whose transaction fails must leave its task row and audit trail exactly as
// they were (both or neither), and in a group commit only the failing change is refused. The
// failures are injected inside SQLite (a trigger raising ABORT), so whatever the engine's
// internals, the write really fails in the database.

const faults: Fault[] = [];
const extraEngines: Engine[] = [];
afterEach(async () => {
  while (faults.length > 0) faults.pop()!.disarm();
  while (extraEngines.length > 0) await extraEngines.pop()!.stop({ graceMs: 0 });
  await closeAll();
});

/** A harness whose engine reports its errors into `errors` instead of the console. */
function withErrors(options: Parameters<typeof harness>[0] = {}): Harness & { errors: unknown[] } {
  const errors: unknown[] = [];
  const h = harness({ ...options, onError: (err) => void errors.push(err) });
  // Handlers for the types dispatched while the engine is stopped (never run here).
  for (const type of ['Reports.Daily', 'Reports.Fine', 'Reports.Broken', 'Jobs.Later', 'Jobs.Now']) h.engine.handle(type, async () => {});
  return Object.assign(h, { errors });
}

const arm = (f: Fault) => (faults.push(f), f);

describe('a failing write leaves the task row and its audit trail unchanged together', () => {
  it('dispatch: the promise rejects with the database error; no row, no audit, no counter', async () => {
    const h = withErrors();
    const before = snapshotStore(h.storage.db);
    arm(failStatusAudit(h.storage.db, { status: 'Queued', taskType: 'Reports.Daily' }));
    const err = await h.engine.dispatch('Reports.Daily', { day: 1 }).then(() => null, (e: unknown) => e);
    expect(isInjected(err)).toBe(true);
    expect(snapshotStore(h.storage.db)).toEqual(before);
  });

  it('group commit: of three dispatches sharing a commit only the failing one is refused; the other two are kept with their audits', async () => {
    const h = withErrors();
    arm(failStatusAudit(h.storage.db, { status: 'Queued', taskType: 'Reports.Broken' }));
    // Issued in one turn of the event loop: they share one transaction.
    const results = await Promise.allSettled([
      h.engine.dispatch('Reports.Fine', { n: 1 }),
      h.engine.dispatch('Reports.Broken', { n: 2 }),
      h.engine.dispatch('Reports.Fine', { n: 3 }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(isInjected((results[1] as PromiseRejectedResult).reason)).toBe(true);
    const kept = results.filter((r): r is PromiseFulfilledResult<string> => r.status === 'fulfilled').map((r) => r.value);
    for (const id of kept) {
      expect((await h.row(id))).toMatchObject({ status: 'Queued', type: 'Reports.Fine' });
      expect((await h.audits(id))).toEqual(['Queued']);
    }
    expect(h.storage.db.prepare(`SELECT COUNT(*) FROM tasks WHERE type = 'Reports.Broken'`).pluck().get()).toBe(0);
    expect(h.storage.db.prepare('SELECT COUNT(*) FROM status_audit').pluck().get()).toBe(2);
    expect(h.storage.db.prepare(`SELECT type, status, n FROM stat_tasks WHERE n <> 0`).all()).toEqual([
      { type: 'Reports.Fine', status: 'Queued', n: 2 },
    ]);
  });

  it('group commit: a failing cancel next to a dispatch and a good cancel refuses only itself', async () => {
    const h = withErrors();
    const a = await h.engine.dispatch('Jobs.Later', {}, { delayMs: 3_600_000 });
    const b = await h.engine.dispatch('Jobs.Later', {}, { delayMs: 3_600_000 });
    arm(failStatusAudit(h.storage.db, { status: 'Cancelled', taskId: b }));
    const beforeB = snapshotTask(h.storage.db, b);
    const [ca, cb, d] = await Promise.allSettled([h.engine.cancel(a), h.engine.cancel(b), h.engine.dispatch('Jobs.Now', {})]);
    expect(ca).toEqual({ status: 'fulfilled', value: 'Cancelled' });
    expect(cb.status).toBe('rejected');
    expect(isInjected((cb as PromiseRejectedResult).reason)).toBe(true);
    expect(d.status).toBe('fulfilled');
    expect((await h.audits(a))).toEqual(['Pending', 'Cancelled']);
    expect(snapshotTask(h.storage.db, b)).toEqual(beforeB);
    expect((await h.audits((d as PromiseFulfilledResult<string>).value))).toEqual(['Queued']);
  });

  it('cancel: the row stays Pending with its one audit; the call rejects; cancelling again after the fault succeeds', async () => {
    const h = withErrors();
    const id = await h.engine.dispatch('Jobs.Later', {}, { delayMs: 3_600_000 });
    const before = snapshotTask(h.storage.db, id);
    const fault = arm(failTaskWrite(h.storage.db, { event: 'UPDATE', taskId: id, newStatus: 'Cancelled' }));
    const err = await h.engine.cancel(id).then(() => null, (e: unknown) => e);
    expect(isInjected(err)).toBe(true);
    expect(snapshotTask(h.storage.db, id)).toEqual(before);
    fault.disarm();
    expect(await h.engine.cancel(id)).toBe('Cancelled');
    expect((await h.audits(id))).toEqual(['Pending', 'Cancelled']);
  });

  it('start: while the InProgress audit cannot be written the task stays Queued with no event; then its start and end are written once', async () => {
    const h = withErrors();
    const calls: string[] = [];
    h.engine.handle('Jobs.Claimed', async (_r, ctx) => void calls.push(ctx.taskId));
    const id = await h.engine.dispatch('Jobs.Claimed', {});
    const fault = arm(failStatusAudit(h.storage.db, { status: 'InProgress', taskId: id }));
    await h.engine.start();
    await waitFor(async () => h.errors.some(isInjected), 5000, 'the start to fail');
    // The handler began from memory; its start (and end) wait in memory, nothing of them is stored.
    expect(snapshotTask(h.storage.db, id).row).toMatchObject({ status: 'Queued', started_at: null, run_token: null });
    expect((await h.audits(id))).toEqual(['Queued']);
    expect(h.events.filter((e) => e.taskId === id)).toEqual([]);
    fault.disarm();
    await waitFor(async () => (await h.status(id)) === 'Completed', 5000, 'the task to complete');
    expect(calls).toEqual([id]);
    expect((await h.audits(id))).toEqual(['Queued', 'InProgress', 'Completed']);
    // The events follow the commit's answer, which a deferred store gives a few turns after the row is written.
    await waitFor(() => h.events.some((e) => e.taskId === id && e.kind === 'Completed'), 5000, 'the Completed event');
    expect(h.events.filter((e) => e.taskId === id).map((e) => e.kind)).toEqual(['Started', 'Completed']);
  });

  for (const outcome of ['Completed', 'Failed'] as const) {
    it(`${outcome === 'Completed' ? 'complete' : 'fail'}: when the ${outcome} record fails the row stays InProgress with its audits, no ${outcome} event; a restart delivers it again`, async () => {
      const h = withErrors({ retry: { attempts: 1 } });
      const running = deferred<ReturnType<typeof snapshotTask>>();
      const release = deferred();
      let calls = 0;
      h.engine.handle('Jobs.Finishing', async (_r, ctx) => {
        calls++;
        if (calls > 1) return;
        // The start is written by the commit after the handler began.
        await waitFor(async () => (await h.status(ctx.taskId)) === 'InProgress', 5000, 'the start to be written');
        running.resolve(snapshotTask(h.storage.db, ctx.taskId));
        await release.promise;
        if (outcome === 'Failed') throw new Error('the report source is down');
      });
      await h.engine.start();
      const id = await h.engine.dispatch('Jobs.Finishing', {});
      const during = await running.promise;
      expect(during.row).toMatchObject({ status: 'InProgress' });
      const fault = arm(failStatusAudit(h.storage.db, { status: outcome, taskId: id }));
      release.resolve();
      await waitFor(async () => h.errors.some(isInjected), 5000, `the ${outcome} record to fail`);
      expect(snapshotTask(h.storage.db, id)).toEqual(during);
      expect(h.events.filter((e) => e.taskId === id).map((e) => e.kind)).toEqual(['Started']);

      // Not lost: after a restart the row is recovered and delivered again (at least once).
      // The finish keeps failing: stop() gives up writing it after 200 ms and leaves it to recovery.
      await h.engine.stop({ graceMs: 0, writeTimeoutMs: 200 });
      fault.disarm();
      const again = createEngine({ storage: h.storage, pollIntervalMs: 20 });
      extraEngines.push(again);
      again.handle('Jobs.Finishing', async () => void calls++);
      await again.start();
      await waitFor(async () => (await h.status(id)) === 'Completed', 5000, 'the recovered task to complete');
      expect((await h.audits(id))).toEqual(['Queued', 'InProgress', 'Queued', 'InProgress', 'Completed']);
      expect((await h.row(id))).toMatchObject({ run_count: 1, last_outcome: 'Completed' });
    });
  }
});
