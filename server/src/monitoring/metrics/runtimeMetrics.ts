import { collectDefaultMetrics, Registry, type Metric } from 'prom-client';
import { METRICS_PREFIX } from './metricFamilies.js';

/**
 * Node's process families (CPU, memory, heap, handles, event-loop lag, GC durations) are one set
 * per process. prom-client starts a GC observer and an event-loop delay monitor for each set it
 * makes and gives no way to stop them, so the set is made once, on first need, and every
 * monitoring registry of the process lends the same family objects: opening the monitoring again
 * (a host that reopens it) adds no observer, and closing one leaves the others whole.
 */
let families: readonly Metric[] | undefined;

function runtimeFamilies(): readonly Metric[] {
  if (families !== undefined) return families;
  const own = new Registry();
  collectDefaultMetrics({ register: own, prefix: METRICS_PREFIX });
  // prom-client also writes a few gauges as `…_total` (duplicates of gauges without the suffix);
  // `_total` is the counters' suffix, so they go (promtool's lint refuses them).
  for (const metric of own.getMetricsAsArray()) {
    if (String(metric.type) !== 'counter' && metric.name.endsWith('_total')) own.removeSingleMetric(metric.name);
  }
  const made = own.getMetricsAsArray().flatMap(({ name }) => own.getSingleMetric(name) ?? []);
  families = made;
  return made;
}

/** Adds the process families to `registry` (its `clear()` takes them out again, for it alone). */
export function registerRuntimeMetrics(registry: Registry): void {
  for (const metric of runtimeFamilies()) registry.registerMetric(metric);
}
