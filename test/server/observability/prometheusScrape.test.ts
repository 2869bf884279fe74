import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, harness, sleep } from '../../fixtures/server/engineHarness.js';
import { serve, type Served } from '../../fixtures/server/servedMonitoring.js';
import { startPrometheus, type RunningPrometheus } from '../../fixtures/server/prometheusServer.js';

const METRICS_TOKEN = 'prometheus-scraper-token-42';
let served: Served | undefined;
let prometheus: RunningPrometheus | undefined;
afterEach(async () => {
  await prometheus?.stop();
  prometheus = undefined;
  await served?.close();
  served = undefined;
  await closeAll();
});

describe('a real Prometheus scraping the monitoring', () => {
  it('scrapes with the metrics token and reads back a completion rate and the task gauge through its query API', async () => {
    const h = harness({ pollIntervalMs: 20 });
    h.engine.handle('mail.send', async () => undefined);
    await h.engine.start();
    served = await serve({ engine: h.engine, storage: h.storage }, { enableAuthentication: true, metricsToken: METRICS_TOKEN });
    prometheus = await startPrometheus({ hostPort: new URL(served.baseUrl).host, metricsPath: '/svc-monitoring/metrics', bearer: METRICS_TOKEN });

    // Steady work for a few scrapes: 10 tasks every 200 ms.
    let dispatched = 0;
    let rate: number | undefined;
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      for (let i = 0; i < 10; i++) await h.engine.dispatch('mail.send', { n: dispatched++ });
      await sleep(200);
      const result = await prometheus.query('sum(rate(svc_tasks_finished_total{job="svc",outcome="completed",type="mail.send"}[5s]))');
      const value = result[0] ? Number(result[0].value[1]) : 0;
      if (value > 0) {
        rate = value;
        break;
      }
    }
    expect(rate, 'a completion rate read back from Prometheus').toBeGreaterThan(0);
    const up = await prometheus.query('up{job="svc"}');
    expect(up.map((r) => r.value[1])).toEqual(['1']);
    const completed = await prometheus.query('svc_tasks{job="svc",queue="default",status="Completed"}');
    expect(Number(completed[0]?.value[1])).toBeGreaterThan(0);
  });
});
