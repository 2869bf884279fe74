import { Registry, type Metric, type MetricObjectWithValues, type MetricValue } from 'prom-client';

/** What prom-client's registry renders one family with (public at run time, absent from its types). */
interface FamilyRenderer {
  getMetricsAsString(metric: { get(): Promise<MetricObjectWithValues<MetricValue<string>>> }): Promise<string>;
}
const OpenMetricsRegistry = Registry as unknown as new (contentType: string) => Registry & FamilyRenderer;

/**
 * The registry's families in the OpenMetrics text format. prom-client writes OpenMetrics only
 * from a registry of that content type, and renames the counters it renders there in place; so
 * each family is rendered through a copy whose counter name drops `_total` (the format puts it
 * back on the samples), leaving the Prometheus-format registry untouched.
 */
export async function openMetricsText(registry: Registry): Promise<string> {
  const renderer = new OpenMetricsRegistry(Registry.OPENMETRICS_CONTENT_TYPE);
  const families = await Promise.all(
    (registry.getMetricsAsArray() as unknown as Metric[]).map(async (metric) => {
      const family = (await metric.get()) as MetricObjectWithValues<MetricValue<string>>;
      const name = String(family.type) === 'counter' ? family.name.replace(/_total$/, '') : family.name;
      return renderer.getMetricsAsString({ get: async () => ({ ...family, name }) });
    }),
  );
  return `${families.join('\n')}\n# EOF\n`;
}
