// @backends postgres — two monitoring instances share one store only on PostgreSQL (a SQLite file has one monitoring process)
import { afterEach, describe, expect, it } from 'vitest';
import { openMonitoredStore } from '../../fixtures/server/monitoredStore.js';
import { parseSamples, scrape, type Sample } from '../../fixtures/server/scrape.js';
import { insertTask, serve, type Served } from '../../fixtures/server/servedMonitoring.js';
import { waitFor } from '../../fixtures/waitFor.js';

// The store-read gauges (svc_tasks, svc_queue_oldest_waiting_seconds, svc_schedules) come from one
// instance of a cluster, the leader: Prometheus's sum over every instance's scrape is the store's count.

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

const total = (scrapes: Sample[][], name: string, labels: Record<string, string>) =>
  scrapes
    .flat()
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((n, s) => n + s.value, 0);

describe('store-read gauges over two monitoring instances on one PostgreSQL schema', () => {
  it('sum over both scrapes equals the store\'s counts; when the exporting instance stops, the other exports them', async () => {
    const t = openMonitoredStore();
    cleanups.push(() => t.destroy());
    await t.seed((db) => {
      for (let i = 0; i < 3; i++) insertTask(db, { queue: 'billing' });
      for (let i = 0; i < 2; i++) insertTask(db, { queue: 'billing', status: 'Completed', last_outcome: 'Completed', run_count: 1 });
      insertTask(db, { queue: 'mail' });
    });
    const instances: Served[] = [];
    for (let i = 0; i < 2; i++) {
      const served = await serve(await t.source(), { enableAuthentication: false });
      cleanups.push(() => served.close());
      instances.push(served);
    }
    const scrapeAll = async (of: Served[]) => Promise.all(of.map(async (s) => parseSamples((await scrape(s)).text)));

    const both = await scrapeAll(instances);
    expect(total(both, 'svc_tasks', { queue: 'billing', status: 'Queued' })).toBe(3);
    expect(total(both, 'svc_tasks', { queue: 'billing', status: 'Completed' })).toBe(2);
    expect(total(both, 'svc_tasks', { queue: 'mail', status: 'Queued' })).toBe(1);
    expect(total(both, 'svc_schedules', { state: 'active' })).toBe(0);
    // Exactly one instance gives the samples; the other's families are declared without any.
    const exporting = both.map((samples) => samples.some((s) => s.name === 'svc_tasks'));
    expect(exporting.filter(Boolean)).toHaveLength(1);
    expect(both.map((samples) => samples.filter((s) => s.name === 'svc_schedules').length).sort()).toEqual([0, 2]);

    // The exporter stops: the other takes the lock at its next scrape that reads the store (scrapes
    // closer together than a quarter second share one read, so the first one may still be empty).
    const leader = instances[exporting.indexOf(true)]!;
    const other = instances[exporting.indexOf(false)]!;
    await leader.close();
    const after = await waitFor(async () => {
      const scraped = await scrapeAll([other]);
      return scraped[0]!.some((s) => s.name === 'svc_tasks') ? scraped : undefined;
    }, 5_000, 'the other instance to export the store gauges', 100);
    expect(total(after, 'svc_tasks', { queue: 'billing', status: 'Queued' })).toBe(3);
    expect(total(after, 'svc_schedules', { state: 'halted' })).toBe(0);
    expect(after[0]!.filter((s) => s.name === 'svc_schedules')).toHaveLength(2);
  }, 60_000);
});
