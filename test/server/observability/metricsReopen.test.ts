import perfHooks, { PerformanceObserver } from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMetrics } from '../../../server/src/monitoring/metrics/createMetrics.js';
import type { MonitoringStore } from '../../../server/src/storage/MonitoringStore.js';
import { parseSamples } from '../../fixtures/server/scrape.js';

/** A store with no queues and no schedules (the gauges read it at scrape time). */
const emptyStore = { queueMetrics: async () => [], scheduleStates: async () => ({ active: 0, halted: 0 }) } as unknown as MonitoringStore;

afterEach(() => vi.restoreAllMocks());

describe('monitoring reopened in one process', () => {
  it("opening and closing the metrics again and again starts Node's GC observer and event-loop monitor at most once; every scrape still has the process families", async () => {
    const observe = vi.spyOn(PerformanceObserver.prototype, 'observe');
    const monitor = vi.spyOn(perfHooks, 'monitorEventLoopDelay');
    for (let i = 0; i < 5; i++) {
      const metrics = createMetrics({ store: emptyStore, typeLabelLimit: 20, now: Date.now });
      const names = new Set(parseSamples((await metrics.scrape(undefined)).body).map((s) => s.name));
      for (const name of ['svc_process_cpu_user_seconds_total', 'svc_nodejs_eventloop_lag_p99_seconds', 'svc_nodejs_heap_size_used_bytes']) expect(names).toContain(name);
      metrics.close();
    }
    const gcObservers = observe.mock.calls.filter(([options]) => JSON.stringify(options ?? {}).includes('gc')).length;
    expect(gcObservers).toBeLessThanOrEqual(1);
    expect(monitor.mock.calls.length).toBeLessThanOrEqual(1);
  });

  it('two monitorings open at once both export the process families, and closing one leaves the other whole', async () => {
    const a = createMetrics({ store: emptyStore, typeLabelLimit: 20, now: Date.now });
    const b = createMetrics({ store: emptyStore, typeLabelLimit: 20, now: Date.now });
    a.close();
    const names = new Set(parseSamples((await b.scrape(undefined)).body).map((s) => s.name));
    for (const name of ['svc_process_cpu_user_seconds_total', 'svc_nodejs_heap_size_used_bytes', 'svc_build_info']) expect(names).toContain(name);
    b.close();
  });
});
