import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { SeriesCounter, SeriesHistogram } from '../../../server/src/monitoring/metrics/boundSeries.js';
import { TASK_SECONDS_BUCKETS } from '../../../server/src/monitoring/metrics/metricFamilies.js';
import { openMetricsText } from '../../../server/src/monitoring/metrics/openMetricsText.js';

// The engine's per-task families are bound series (server/src/monitoring/metrics/boundSeries.ts);
// a scraper must read exactly what prom-client's own counters and histograms would give it.

const labelNames = ['engine_instance', 'queue', 'type'] as const;
const events: [string, string, number][] = [
  ['default', 'mail.send', 0.003],
  ['default', 'mail.send', 0.005], // on a bound: counted in its bucket (le is inclusive)
  ['default', 'report', 42],
  ['mail', 'mail.send', 7200], // above every bound: +Inf only
  ['default', 'mail.send', 0.2],
];

function both() {
  const reference = new Registry();
  const bound = new Registry();
  const refCounter = new Counter({ name: 'svc_t_total', help: 'Counted.', labelNames, registers: [reference] });
  const refHistogram = new Histogram({ name: 'svc_t_seconds', help: 'Timed.', labelNames, buckets: TASK_SECONDS_BUCKETS, registers: [reference] });
  const counter = new SeriesCounter({ name: 'svc_t_total', help: 'Counted.', labelNames, registers: [bound] });
  const histogram = new SeriesHistogram({ name: 'svc_t_seconds', help: 'Timed.', labelNames, buckets: TASK_SECONDS_BUCKETS, registers: [bound] });
  for (const [queue, type, seconds] of events) {
    refCounter.inc({ engine_instance: 'h/1', queue, type });
    refHistogram.observe({ engine_instance: 'h/1', queue, type }, seconds);
    counter.of('h/1', queue, type).value++;
    histogram.of('h/1', queue, type).observe(seconds);
  }
  return { reference, bound };
}

describe('bound series render as prom-client families do', () => {
  it('the Prometheus text format', async () => {
    const { reference, bound } = both();
    expect(await bound.metrics()).toBe(await reference.metrics());
  });

  it('the OpenMetrics text format', async () => {
    const { reference, bound } = both();
    expect(await openMetricsText(bound)).toBe(await openMetricsText(reference));
  });
});
