import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, openSqliteStorage } from '../../../server/src/index.js';
import { closeAll, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';
import { serve, type Served } from '../../fixtures/server/servedMonitoring.js';
import { parseSamples, sampleValue, scrape } from '../../fixtures/server/scrape.js';

// The two outcomes of svc_tasks_finished_total that no hub event kind carries: a run given up
// when its engine stopped (ServiceStopped) and a task failed by recovery because its runs kept
// being abandoned.

let served: Served | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await served?.close();
  served = undefined;
  while (cleanups.length > 0) await cleanups.pop()!();
  await closeAll();
});

const finished = async (outcome: string) => sampleValue(parseSamples((await scrape(served!)).text), 'svc_tasks_finished_total', { outcome });

describe('svc_tasks_finished_total: outcomes without a hub event', () => {
  it('a run given up at the engine stop counts service_stopped; a reserved row handed back Queued counts nothing', async () => {
    const h = harness({ pollIntervalMs: 20, queues: { default: { concurrency: 1 } } });
    // A handler that ignores its abort signal: the stop's grace period runs out.
    h.engine.handle('Stuck.Work', () => new Promise<never>(() => undefined));
    await h.engine.start();
    served = await serve({ engine: h.engine, storage: h.storage }, { enableAuthentication: false });
    const running = await h.engine.dispatch('Stuck.Work', { n: 1 });
    const waiting = await h.engine.dispatch('Stuck.Work', { n: 2 });
    await waitFor(() => h.events.some((e) => e.kind === 'Started' && e.taskId === running), 5000, 'the first run started');
    expect(await finished('service_stopped')).toBeUndefined();

    await h.engine.stop({ graceMs: 50 });
    expect(await h.statuses([running, waiting])).toEqual(['ServiceStopped', 'Queued']);
    const samples = parseSamples((await scrape(served)).text);
    expect(sampleValue(samples, 'svc_tasks_finished_total', { queue: 'default', type: 'Stuck.Work', outcome: 'service_stopped' })).toBe(1);
    expect(samples.filter((s) => s.name === 'svc_tasks_finished_total').map((s) => s.labels.outcome)).toEqual(['service_stopped']);
    // The attempt given up counts as stopped; ServiceStopped is not a terminal end (the next start requeues it).
    expect(sampleValue(samples, 'svc_task_attempts_total', { queue: 'default', type: 'Stuck.Work', result: 'stopped' })).toBe(1);
    expect(sampleValue(samples, 'svc_task_attempt_seconds_count', { queue: 'default', type: 'Stuck.Work' })).toBe(1);
    expect(sampleValue(samples, 'svc_task_duration_seconds_count', { queue: 'default', type: 'Stuck.Work' })).toBeUndefined();
  });

  it('a task recovery fails as abandoned (past maxAbandoned) counts abandoned, not failed', async () => {
    // The first engine's process "dies" mid-run: its row stays InProgress while a second engine
    // over the same file starts, finds it abandoned once (maxAbandoned 0) and fails it.
    // Its own stop later finds the row no longer its run's: that dropped write is expected here.
    const first = harness({ pollIntervalMs: 20, onError: (err, where) => void (where.startsWith('stale run write') || console.error(where, err)) });
    first.engine.handle('Abandon.Work', () => new Promise<never>(() => undefined));
    await first.engine.start();
    const id = await first.engine.dispatch('Abandon.Work', {});
    await waitFor(async () => (await first.status(id)) === 'InProgress', 5000, 'the run written InProgress');

    const storage = openSqliteStorage({ file: first.file });
    const second = createEngine({ storage, pollIntervalMs: 20, maxAbandoned: 0 });
    const failedEvents: unknown[] = [];
    second.on('event', (e) => e.kind === 'Failed' && failedEvents.push(e));
    cleanups.push(() => storage.close(), () => second.stop({ graceMs: 0 }));
    served = await serve({ engine: second, storage }, { enableAuthentication: false });
    await second.start();

    expect(await first.status(id)).toBe('Failed');
    const samples = parseSamples((await scrape(served)).text);
    expect(sampleValue(samples, 'svc_tasks_finished_total', { queue: 'default', type: 'Abandon.Work', outcome: 'abandoned' })).toBe(1);
    expect(sampleValue(samples, 'svc_tasks_finished_total', { outcome: 'failed' })).toBeUndefined();
    expect(sampleValue(samples, 'svc_task_attempts_total', { queue: 'default', type: 'Abandon.Work', result: 'abandoned' })).toBe(1);
    // The hub's event stays a Failed one; a field says why.
    expect(failedEvents).toEqual([expect.objectContaining({ taskId: id, abandoned: true, exception: expect.stringMatching(/^TaskAbandonedError: /) })]);
  });
});
