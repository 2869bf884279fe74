import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT, OTHER_CLIENT, httpFrom, serveWithHub } from '../../fixtures/server/fromAddress.js';
import { closeAll, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';
import { serve, type Served } from '../../fixtures/server/servedMonitoring.js';
import { parseSamples, sampleValue, scrape, type Sample } from '../../fixtures/server/scrape.js';

// Each outcome of the attempt and task families after the event that makes it, read from a scrape
// in the Prometheus text format (what Prometheus parses). Stopped and abandoned: finishOutcomes.test.ts.

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
  await closeAll();
});

const samplesOf = async (): Promise<Sample[]> => parseSamples((await scrape(served!)).text);

describe('svc_task_attempts_total and the attempt and task histograms', () => {
  it('a task failing three times then succeeding counts three failed attempts, one succeeded, four attempt times and one task time', async () => {
    const h = harness({ pollIntervalMs: 20, retry: { attempts: 5, backoffMs: 10, backoff: 'fixed' } });
    let calls = 0;
    h.engine.handle('flaky.sync', async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 30));
      if (calls <= 3) throw new Error(`attempt ${calls} failed`);
    });
    await h.engine.start();
    served = await serve({ engine: h.engine, storage: h.storage }, { enableAuthentication: false });
    expect(sampleValue(await samplesOf(), 'svc_task_attempts_total', { type: 'flaky.sync' })).toBeUndefined();
    await h.engine.dispatch('flaky.sync', {});
    await waitFor(() => h.events.some((e) => e.kind === 'Completed'), 10_000, 'the fourth attempt succeeded');
    const s = await samplesOf();
    const labels = { queue: 'default', type: 'flaky.sync' };
    expect(sampleValue(s, 'svc_task_attempts_total', { ...labels, result: 'failed' })).toBe(3);
    expect(sampleValue(s, 'svc_task_attempts_total', { ...labels, result: 'succeeded' })).toBe(1);
    expect(s.filter((x) => x.name === 'svc_task_attempts_total').map((x) => x.labels.result).sort()).toEqual(['failed', 'succeeded']);
    expect(sampleValue(s, 'svc_tasks_finished_total', { ...labels, outcome: 'completed' })).toBe(1);
    // One meaning each: every attempt's handler time (each about 30 ms), and the task's whole time once.
    expect(sampleValue(s, 'svc_task_attempt_seconds_count', labels)).toBe(4);
    expect(sampleValue(s, 'svc_task_attempt_seconds_sum', labels)!).toBeGreaterThanOrEqual(0.1);
    expect(sampleValue(s, 'svc_task_attempt_seconds_bucket', { ...labels, le: '0.025' })).toBe(0);
    expect(sampleValue(s, 'svc_task_duration_seconds_count', labels)).toBe(1);
    // The whole time spans the four attempts and three backoffs.
    expect(sampleValue(s, 'svc_task_duration_seconds_sum', labels)!).toBeGreaterThanOrEqual(0.15);
    // Buckets reach one hour.
    expect(sampleValue(s, 'svc_task_duration_seconds_bucket', { ...labels, le: '3600' })).toBe(1);
    expect(sampleValue(s, 'svc_task_wait_seconds_bucket', { queue: 'default', le: '1800' })).toBe(1);
  });

  it('timed-out attempts count timed_out (retried and final), the task timed_out once', async () => {
    const h = harness({ pollIntervalMs: 20, retry: { attempts: 2, backoffMs: 10, backoff: 'fixed' } });
    h.engine.handle('slow.job', () => new Promise((r) => setTimeout(r, 2000)), { timeoutMs: 30 });
    await h.engine.start();
    served = await serve({ engine: h.engine, storage: h.storage }, { enableAuthentication: false });
    await h.engine.dispatch('slow.job', {});
    await waitFor(() => h.events.some((e) => e.kind === 'Failed'), 10_000, 'the final failure');
    const s = await samplesOf();
    expect(sampleValue(s, 'svc_task_attempts_total', { type: 'slow.job', result: 'timed_out' })).toBe(2);
    expect(sampleValue(s, 'svc_task_attempts_total', { type: 'slow.job', result: 'failed' })).toBeUndefined();
    expect(sampleValue(s, 'svc_tasks_finished_total', { type: 'slow.job', outcome: 'timed_out' })).toBe(1);
    expect(sampleValue(s, 'svc_task_attempt_seconds_count', { type: 'slow.job' })).toBe(2);
    expect(sampleValue(s, 'svc_task_duration_seconds_count', { type: 'slow.job' })).toBe(1);
  });

  it('a running task cancelled counts a cancelled attempt and a cancelled task; a failure with no retry left counts failed', async () => {
    const h = harness({ pollIntervalMs: 20 });
    h.engine.handle('long.job', (_req, ctx) => new Promise<void>((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))));
    h.engine.handle('bad.job', async () => {
      throw new Error('no');
    });
    await h.engine.start();
    served = await serve({ engine: h.engine, storage: h.storage }, { enableAuthentication: false });
    const id = await h.engine.dispatch('long.job', {});
    await waitFor(() => h.events.some((e) => e.kind === 'Started' && e.taskId === id), 5000, 'started');
    await h.engine.cancel(id);
    await h.engine.dispatch('bad.job', {});
    await waitFor(() => h.events.some((e) => e.kind === 'Cancelled') && h.events.some((e) => e.kind === 'Failed'), 5000, 'both ends');
    const s = await samplesOf();
    expect(sampleValue(s, 'svc_task_attempts_total', { type: 'long.job', result: 'cancelled' })).toBe(1);
    expect(sampleValue(s, 'svc_tasks_finished_total', { type: 'long.job', outcome: 'cancelled' })).toBe(1);
    expect(sampleValue(s, 'svc_task_duration_seconds_count', { type: 'long.job' })).toBe(1);
    expect(sampleValue(s, 'svc_task_attempts_total', { type: 'bad.job', result: 'failed' })).toBe(1);
    expect(sampleValue(s, 'svc_tasks_finished_total', { type: 'bad.job', outcome: 'failed' })).toBe(1);
  });

  it('svc_build_info names the package version and Node', async () => {
    const h = harness();
    served = await serve({ engine: h.engine, storage: h.storage }, { enableAuthentication: false });
    const s = await samplesOf();
    const info = s.filter((x) => x.name === 'svc_build_info');
    expect(info).toEqual([{ name: 'svc_build_info', labels: { version: expect.stringMatching(/^\d+\.\d+\.\d+/), node: process.versions.node }, value: 1 }]);
  });
});

describe('hub refusals as metrics', () => {
  it('counts 429 (a client at its cap) and 503 (the hub at its cap) in svc_hub_rejections_total', async () => {
    const s = await serveWithHub({ enableAuthentication: false, hubMaxConnectionsPerClient: 1, hubMaxConnections: 2 });
    try {
      const negotiate = (from: string) => httpFrom(from, `${s.base}/hub/negotiate?negotiateVersion=1`, { method: 'POST' });
      const rejections = async () => {
        const text = await (await fetch(`http://127.0.0.1:${s.port}/svc-monitoring/metrics`)).text();
        const samples = parseSamples(text);
        return { 429: sampleValue(samples, 'svc_hub_rejections_total', { status: '429' }), 503: sampleValue(samples, 'svc_hub_rejections_total', { status: '503' }) };
      };
      expect(await rejections()).toEqual({ 429: 0, 503: 0 });
      expect((await negotiate(CLIENT)).status).toBe(200);
      expect((await negotiate(CLIENT)).status).toBe(429);
      expect((await negotiate(OTHER_CLIENT)).status).toBe(200);
      expect((await negotiate(OTHER_CLIENT)).status).toBe(503);
      expect((await negotiate(CLIENT)).status).toBe(503);
      expect(await rejections()).toEqual({ 429: 1, 503: 2 });
    } finally {
      await s.close();
    }
  });
});
