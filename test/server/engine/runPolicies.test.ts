import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

afterEach(closeAll);

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });

describe('which timeout a run gets, and the execution-log cap of each run', () => {
  it("a dispatch's own timeoutMs wins over the handler registration's, which wins over the engine default", async () => {
    const h = harness({ timeoutMs: 60 });
    const slow = async (request: { ms: number }, ctx: { signal: AbortSignal }) => sleep(request.ms, ctx.signal);
    h.engine.handle('Timeout.Default', slow);
    h.engine.handle('Timeout.Registered', slow, { timeoutMs: 150 });
    await h.engine.start();
    const engineDefault = await h.engine.dispatch('Timeout.Default', { ms: 2000 });
    const registered = await h.engine.dispatch('Timeout.Registered', { ms: 2000 });
    const dispatchedShorter = await h.engine.dispatch('Timeout.Registered', { ms: 2000 }, { timeoutMs: 100 });
    const dispatchedLonger = await h.engine.dispatch('Timeout.Default', { ms: 300 }, { timeoutMs: 5000 });
    const all = [engineDefault, registered, dispatchedShorter, dispatchedLonger];
    await waitFor(async () => (await h.statuses(all)).every((s) => s === 'Failed' || s === 'Completed'), 10_000, 'every run ended');
    const exception = async (id: string) => (await h.row(id))['exception'] as string | null;
    expect(await exception(engineDefault)).toMatch(/^TaskTimeoutError: The task timed out after 60 ms/);
    expect(await exception(registered)).toMatch(/^TaskTimeoutError: The task timed out after 150 ms/);
    expect(await exception(dispatchedShorter)).toMatch(/^TaskTimeoutError: The task timed out after 100 ms/);
    expect(await h.status(dispatchedLonger)).toBe('Completed');
  });

  it('an inline recurring task logs up to the cap in every run, not once in its life', async () => {
    const h = harness({ logCapPerRun: 2 });
    h.engine.handle('Cap.Recurring', (_r, ctx) => {
      for (let i = 1; i <= 5; i++) ctx.log.info(`run ${ctx.runNumber} line ${i}`);
    });
    await h.engine.start();
    const id = await h.engine.recurring('Cap.Recurring', {}, { every: 20, maxRuns: 3 });
    await waitFor(async () => (await h.status(id)) === 'Completed', 10_000, 'three runs');
    const logs = await h.probe.logs(id);
    expect(logs.map((l) => l.message)).toEqual(['run 1 line 1', 'run 1 line 2', 'run 2 line 1', 'run 2 line 2', 'run 3 line 1', 'run 3 line 2']);
    expect(logs.map((l) => l.sequence_number)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('a task retried after it failed logs up to the cap again in its new run', async () => {
    const h = harness({ logCapPerRun: 2 });
    let run = 0;
    h.engine.handle('Cap.Retried', (_r, ctx) => {
      run++;
      for (let i = 1; i <= 5; i++) ctx.log.info(`run ${run} line ${i}`);
      if (run === 1) throw new Error('first run fails');
    });
    await h.engine.start();
    const id = await h.engine.dispatch('Cap.Retried');
    await waitFor(async () => (await h.status(id)) === 'Failed', 10_000, 'the first run failed');
    expect((await h.engine.tasks.retry(id, 'tester')).status).toBe('Succeeded');
    await waitFor(async () => (await h.status(id)) === 'Completed', 10_000, 'the retried run completed');
    expect((await h.probe.logs(id)).map((l) => l.message)).toEqual(['run 1 line 1', 'run 1 line 2', 'run 2 line 1', 'run 2 line 2']);
  });
});
