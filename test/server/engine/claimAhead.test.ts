import { afterEach, describe, expect, it } from 'vitest';
import { claimAheadFactor, MAX_CLAIM_AHEAD } from '../../../server/src/engine/RunLifecycle.js';
import { closeAll, deferred, harness, sleep, waitFor, type Harness } from './helpers.js';

afterEach(closeAll);

/** Runs `n` short tasks to completion so that the queue knows its handlers are short. */
async function warmUp(h: Harness, n = 20): Promise<void> {
  const ids = await Promise.all(Array.from({ length: n }, (_, i) => h.engine.dispatch('A.Fast', { warm: i })));
  await waitFor(async () => (await h.statuses(ids)).every((s) => s === 'Completed'), 10_000, 'warm-up tasks Completed');
}

/** One worker whose queue is known to run short handlers; `A.Fast` records its `n`, `A.Block` runs `block`. */
async function warmOneWorker(block: () => unknown): Promise<{ h: Harness; ran: number[] }> {
  const h = harness({ queues: { default: { concurrency: 1 } } });
  const ran: number[] = [];
  h.engine.handle('A.Fast', (req: { n?: number }) => {
    if (req.n !== undefined) ran.push(req.n);
  });
  h.engine.handle('A.Block', block);
  await h.engine.start();
  await warmUp(h);
  return { h, ran };
}

/** Dispatches a blocking task and short ones behind it; returns their ids once the blocking task has Started. */
async function behindABlock(h: Harness, ns: number[]): Promise<[string, ...string[]]> {
  const [block, ...fast] = await Promise.all([h.engine.dispatch('A.Block', {}), ...ns.map((n) => h.engine.dispatch('A.Fast', { n }))]);
  await waitFor(() => h.events.some((e) => e.kind === 'Started' && e.taskId === block), 5000, 'the blocking task Started');
  return [block!, ...fast];
}

describe('claim-ahead: short handlers claim rows ahead of their workers', () => {
  it('rows claimed ahead wait InProgress without a Started event, then run once each, in order', async () => {
    const gate = deferred();
    const { h, ran } = await warmOneWorker(() => gate.promise);
    const [block, ...fast] = await behindABlock(h, [1, 2, 3, 4, 5]);
    const statuses = await h.statuses(fast);
    // The only worker is busy, yet rows behind it are InProgress: claimed ahead in the same commit.
    expect(statuses[0]).toBe('InProgress');
    expect(h.events.filter((e) => e.kind === 'Started' && fast.includes(e.taskId))).toEqual([]);
    gate.resolve();
    await waitFor(async () => (await h.statuses([block!, ...fast])).every((s) => s === 'Completed'), 5000, 'every task Completed');
    // Events follow their commit (on a later tick with a deferred store): wait for the last one.
    await waitFor(() => fast.every((id) => h.events.some((e) => e.kind === 'Completed' && e.taskId === id)), 5000, 'every Completed event');
    expect(ran).toEqual([1, 2, 3, 4, 5]);
    for (const id of fast) {
      expect(await h.audits(id)).toEqual(['Queued', 'InProgress', 'Completed']);
      expect(h.events.filter((e) => e.taskId === id).map((e) => e.kind)).toEqual(['Started', 'Completed']);
    }
  });

  it('cancelling a row claimed ahead: Cancelled at once, its handler never runs', async () => {
    const gate = deferred();
    const { h, ran } = await warmOneWorker(() => gate.promise);
    const [block, first, second] = await behindABlock(h, [1, 2]);
    expect(await h.status(first!)).toBe('InProgress');
    expect(await h.engine.cancel(first!)).toBe('Cancelled');
    expect(await h.status(first!)).toBe('Cancelled');
    gate.resolve();
    await waitFor(async () => (await h.statuses([block!, second!])).every((s) => s === 'Completed'), 5000, 'the others Completed');
    expect(ran).toEqual([2]);
    expect(await h.audits(first!)).toEqual(['Queued', 'InProgress', 'Cancelled']);
    await waitFor(() => h.events.some((e) => e.kind === 'Cancelled' && e.taskId === first), 5000, 'the Cancelled event');
    expect(h.events.filter((e) => e.taskId === first).map((e) => e.kind)).toEqual(['Cancelled']);
  });

  it('stopping gives rows claimed ahead up (ServiceStopped); the next start runs each exactly once', async () => {
    const gate = deferred();
    let blockRuns = 0;
    const { h, ran } = await warmOneWorker(() => (++blockRuns === 1 ? gate.promise : undefined));
    const [block, first, second] = await behindABlock(h, [1, 2]);
    expect(await h.status(first!)).toBe('InProgress');
    await h.engine.stop({ graceMs: 0 });
    expect(await h.statuses([block!, first!, second!])).toEqual(['ServiceStopped', 'ServiceStopped', 'ServiceStopped']);
    expect(ran).toEqual([]);
    await h.engine.start();
    await waitFor(async () => (await h.statuses([block!, first!, second!])).every((s) => s === 'Completed'), 5000, 'every task Completed');
    expect(ran).toEqual([1, 2]);
    expect(await h.audits(first!)).toEqual(['Queued', 'InProgress', 'ServiceStopped', 'Queued', 'InProgress', 'Completed']);
    gate.resolve();
  });

  it('one long attempt among short ones (a pause) does not end claim-ahead', async () => {
    const h = harness({ queues: { default: { concurrency: 1 } } });
    const gate = deferred();
    h.engine.handle('A.Fast', () => undefined);
    h.engine.handle('A.Pause', () => sleep(30));
    h.engine.handle('A.Block', () => gate.promise);
    await h.engine.start();
    await warmUp(h);
    const pause = await h.engine.dispatch('A.Pause', {});
    await waitFor(async () => (await h.status(pause)) === 'Completed', 5000, 'the long attempt Completed');
    const [block, first] = await Promise.all([h.engine.dispatch('A.Block', {}), h.engine.dispatch('A.Fast', {})]);
    await waitFor(() => h.events.some((e) => e.kind === 'Started' && e.taskId === block), 5000, 'the blocking task Started');
    expect(await h.status(first!)).toBe('InProgress');
    gate.resolve();
    await waitFor(async () => (await h.status(first!)) === 'Completed', 5000, 'the short task Completed');
  });

  it('a queue whose handlers take longer claims only for its free workers', async () => {
    const h = harness({ queues: { default: { concurrency: 1 } } });
    const seen: number[] = [];
    let ids: string[] = [];
    h.engine.handle('A.Slow', async () => {
      // While this handler runs, how many of the rows are InProgress (this one included)?
      seen.push((await h.statuses(ids)).filter((s) => s === 'InProgress').length);
      await sleep(5);
    });
    await h.engine.start();
    const pending = Array.from({ length: 6 }, (_, i) => h.engine.dispatch('A.Slow', { i }));
    ids = await Promise.all(pending);
    await waitFor(async () => (await h.statuses(ids)).every((s) => s === 'Completed'), 10_000, 'every task Completed');
    // The first handler starts before the test knows the ids; from the second on, one row at a time.
    expect(seen).toHaveLength(6);
    expect(seen.slice(1)).toEqual([1, 1, 1, 1, 1]);
  });

  it('the claim-ahead depth follows the recent attempt durations', () => {
    expect(claimAheadFactor(null)).toBe(1);
    expect(claimAheadFactor(50)).toBe(1);
    expect(claimAheadFactor(2.5)).toBe(1);
    expect(claimAheadFactor(1)).toBe(3);
    expect(claimAheadFactor(0.01)).toBe(MAX_CLAIM_AHEAD);
    expect(claimAheadFactor(0)).toBe(MAX_CLAIM_AHEAD);
  });
});
