import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, deferred, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

afterEach(closeAll);

describe('cancel, graceful stop and recovery', () => {
  it('cancels Pending, Queued and WaitingQueue rows → Cancelled with audit and event', async () => {
    const h = harness({ queues: { small: { concurrency: 1, capacity: 1 } } });
    h.engine.handle('X.Job', () => undefined);
    const pending = await h.engine.dispatch('X.Job', {}, { delayMs: 60_000 });
    const queued = await h.engine.dispatch('X.Job', {}, { queue: 'small' });
    const waiting = await h.engine.dispatch('X.Job', {}, { queue: 'small' });
    expect([(await h.status(pending)), (await h.status(queued)), (await h.status(waiting))]).toEqual(['Pending', 'Queued', 'WaitingQueue']);
    expect(await h.engine.cancel(pending)).toBe('Cancelled');
    expect(await h.engine.cancel(queued)).toBe('Cancelled');
    expect(await h.engine.cancel(waiting)).toBe('Cancelled');
    expect((await h.audits(pending))).toEqual(['Pending', 'Cancelled']);
    expect((await h.audits(queued))).toEqual(['Queued', 'Cancelled']);
    expect((await h.audits(waiting))).toEqual(['WaitingQueue', 'Cancelled']);
    expect(h.events.filter((e) => e.kind === 'Cancelled').map((e) => e.taskId)).toEqual([pending, queued, waiting]);
    expect(await h.engine.cancel(queued)).toBe('NotCancellable');
    expect(await h.engine.cancel('00000000-0000-4000-8000-000000000000')).toBe('NotFound');
    await h.engine.start();
    // A task queued after them on the same queue runs: the workers passed the cancelled rows.
    const after = await h.engine.dispatch('X.Job', {}, { queue: 'small' });
    await waitFor(async () => (await h.status(after)) === 'Completed');
    expect([(await h.status(pending)), (await h.status(queued)), (await h.status(waiting))]).toEqual(['Cancelled', 'Cancelled', 'Cancelled']);
  });

  it('cancel of a running task aborts its signal; Cancelled when the handler settles', async () => {
    const h = harness();
    const seen = deferred<unknown>();
    const release = deferred();
    h.engine.handle('Long.Job', async (_req, ctx) => {
      ctx.signal.addEventListener('abort', () => seen.resolve(ctx.signal.reason));
      await release.promise;
    });
    await h.engine.start();
    const id = await h.engine.dispatch('Long.Job', {});
    await waitFor(async () => (await h.status(id)) === 'InProgress');
    expect(await h.engine.cancel(id)).toBe('Cancelling');
    expect(((await seen.promise) as Error).name).toBe('TaskCancelledError');
    expect((await h.status(id))).toBe('InProgress');
    release.resolve();
    await waitFor(async () => (await h.status(id)) === 'Cancelled');
    expect((await h.audits(id))).toEqual(['Queued', 'InProgress', 'Cancelled']);
    expect((await h.row(id))['run_count']).toBe(0);
    await waitFor(async () => h.events.some((e) => e.kind === 'Cancelled'));
  });

  it('cancel during retry backoff → Cancelled at once', async () => {
    const h = harness();
    h.engine.handle('Retry.Job', () => {
      throw new Error('x');
    }, { retry: { attempts: 3, backoffMs: 60_000, backoff: 'fixed' } });
    await h.engine.start();
    const id = await h.engine.dispatch('Retry.Job', {});
    await waitFor(async () => (await h.row(id))['attempt'] === 1);
    expect(await h.engine.cancel(id)).toBe('Cancelled');
    expect((await h.audits(id))).toEqual(['Queued', 'InProgress', 'Cancelled']);
  });

  it('graceful stop: handlers finishing within graceMs complete; the others become ServiceStopped', async () => {
    const h = harness();
    const never = deferred();
    h.engine.handle('Fast.Finish', () => new Promise<void>((r) => setTimeout(r, 100)));
    h.engine.handle('Never.Finish', () => never.promise);
    await h.engine.start();
    const fast = await h.engine.dispatch('Fast.Finish', {});
    const slow = await h.engine.dispatch('Never.Finish', {});
    await waitFor(async () => (await h.status(fast)) === 'InProgress' && (await h.status(slow)) === 'InProgress');
    await h.engine.stop({ graceMs: 300 });
    expect((await h.status(fast))).toBe('Completed');
    expect((await h.status(slow))).toBe('ServiceStopped');
    expect((await h.audits(slow))).toEqual(['Queued', 'InProgress', 'ServiceStopped']);
    never.resolve();
    // The late outcome settles in the microtasks after the resolve and would be written by the
    // flush it schedules (setImmediate): two turns of the event loop cover both.
    await never.promise;
    for (let i = 0; i < 2; i++) await new Promise((r) => setImmediate(r));
    expect((await h.status(slow))).toBe('ServiceStopped');
    expect((await h.audits(slow))).toEqual(['Queued', 'InProgress', 'ServiceStopped']);
  });

  it('recovery at start: ServiceStopped, InProgress (crash), Queued and WaitingQueue rows all run', async () => {
    const h = harness();
    h.engine.handle('Rec.Job', () => undefined);
    const ids = await Promise.all([0, 1, 2, 3].map(() => h.engine.dispatch('Rec.Job', {})));
    // Simulate what a crash and a stop leave behind (engine never started).
    await h.probe.run(`UPDATE tasks SET status = 'InProgress' WHERE id = ?`, ids[0]);
    await h.probe.run(`UPDATE tasks SET status = 'ServiceStopped' WHERE id = ?`, ids[1]);
    await h.probe.run(`UPDATE tasks SET status = 'WaitingQueue' WHERE id = ?`, ids[2]);
    await h.engine.start();
    await waitFor(async () => (await h.statuses(ids)).every((s) => s === 'Completed'));
    expect((await h.audits(ids[0]!))).toEqual(['Queued', 'Queued', 'InProgress', 'Completed']);
    expect((await h.audits(ids[1]!))).toEqual(['Queued', 'Queued', 'InProgress', 'Completed']);
    expect((await h.audits(ids[2]!))).toEqual(['Queued', 'Queued', 'InProgress', 'Completed']);
  });

  it('a second engine on the same store recovers rows a stopped engine left ServiceStopped, once its handler settled and its store is closed', async () => {
    const h = harness();
    const never = deferred();
    h.engine.handle('Stuck.Job', () => never.promise);
    await h.engine.start();
    const id = await h.engine.dispatch('Stuck.Job', {});
    await waitFor(async () => (await h.status(id)) === 'InProgress');
    await h.engine.stop({ graceMs: 0 });
    expect((await h.status(id))).toBe('ServiceStopped');
    // The stopped handler settles and its process closes its store (on PostgreSQL its instance
    // row goes with it): until then the handler may still run and no other engine takes the row.
    never.resolve();
    await never.promise;
    await h.sut.close();
    const second = h.sut.reopen();
    const engine2 = second.engine({ pollIntervalMs: 20 });
    engine2.handle('Stuck.Job', () => undefined);
    await engine2.start();
    await waitFor(async () => (await second.probe.status(id)) === 'Completed');
    await engine2.stop();
    expect((await second.probe.audits(id))).toEqual(['Queued', 'InProgress', 'ServiceStopped', 'Queued', 'InProgress', 'Completed']);
    // The run was in flight when its engine stopped, its outcome unknown: one abandoned run, on every backend.
    expect((await second.probe.task(id))?.abandoned_count).toBe(1);
    await second.close();
  });

  it('a row left ServiceStopped past maxAbandoned: the next engine ends it Failed as abandoned; reserved rows a stop handed back count nothing', async () => {
    const h = harness({ queues: { default: { concurrency: 1 } } });
    const never = deferred();
    h.engine.handle('Stuck.Job', () => never.promise);
    h.engine.handle('Behind.Job', () => undefined);
    await h.engine.start();
    const id = await h.engine.dispatch('Stuck.Job', {});
    await waitFor(async () => (await h.status(id)) === 'InProgress');
    const behind = await h.engine.dispatch('Behind.Job', {});
    await h.engine.stop({ graceMs: 0 });
    expect(await h.statuses([id, behind])).toEqual(['ServiceStopped', 'Queued']);
    never.resolve();
    await never.promise;
    await h.sut.close();
    const second = h.sut.reopen();
    const engine2 = second.engine({ pollIntervalMs: 20, maxAbandoned: 0 });
    const ran: string[] = [];
    engine2.handle('Stuck.Job', (_r, ctx) => void ran.push(ctx.taskId));
    engine2.handle('Behind.Job', (_r, ctx) => void ran.push(ctx.taskId));
    await engine2.start();
    await waitFor(async () => (await second.probe.statuses([id, behind])).join() === 'Failed,Completed', 10_000, 'the stopped row Failed, the other Completed');
    await engine2.stop();
    expect(ran).toEqual([behind]);
    expect(await second.probe.task(id)).toMatchObject({ abandoned_count: 1, exception: expect.stringMatching(/^TaskAbandonedError: /) });
    expect((await second.probe.task(behind))?.abandoned_count).toBe(0);
    await second.close();
  });
});

describe('stop during retry backoff', () => {
  it('a row waiting for its retry becomes ServiceStopped at stop and runs again after restart', async () => {
    const h = harness();
    let calls = 0;
    h.engine.handle('Backoff.Job', () => {
      calls++;
      if (calls === 1) throw new Error('first attempt fails');
    }, { retry: { attempts: 3, backoffMs: 60_000, backoff: 'fixed' } });
    await h.engine.start();
    const id = await h.engine.dispatch('Backoff.Job', {});
    await waitFor(async () => (await h.row(id))['attempt'] === 1);
    await h.engine.stop({ graceMs: 1000 });
    expect((await h.status(id))).toBe('ServiceStopped');
    await h.engine.start();
    await waitFor(async () => (await h.status(id)) === 'Completed');
    expect(calls).toBe(2);
    expect((await h.audits(id))).toEqual(['Queued', 'InProgress', 'ServiceStopped', 'Queued', 'InProgress', 'Completed']);
  });
});
