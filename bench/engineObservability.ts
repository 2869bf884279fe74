// bench:engine's observability variant (BENCH_OBSERVABILITY=1 or --observability; =metrics or
// =tracing for one part alone): the same
// workload with the monitoring's metrics attached to the engine and an OpenTelemetry tracer
// provider registered, so its cost shows as a ratio to the plain runs and to BullMQ in one run.
// - Metrics: the monitoring's own registry (createMetrics) over the engine and its store, scraped
//   once a second while the run lasts (a Prometheus at a 1 s interval: pessimistic).
// - Traces: a BasicTracerProvider whose BatchSpanProcessor exports to an exporter that drops
//   every span, so the spans are made, batched and handed over, and nothing else is paid.
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Engine, SqliteStorage } from '../server/src/index.js';
import { createMetrics } from '../server/src/monitoring/metrics/createMetrics.js';
import { createSqliteMonitoringStore } from '../server/src/storage/sqlite/monitoring/createSqliteMonitoringStore.js';

const PARTS = process.env['BENCH_OBSERVABILITY'] ?? (process.argv.includes('--observability') ? '1' : undefined);
if (PARTS !== undefined && !['1', 'metrics', 'tracing'].includes(PARTS)) throw new Error(`BENCH_OBSERVABILITY must be 1, metrics or tracing (got "${PARTS}")`);
/** Whether the variant runs; `metrics` or `tracing` turns on that part alone (to split the cost). */
export const OBSERVABILITY = PARTS !== undefined;
const METRICS_ON = PARTS === '1' || PARTS === 'metrics';
const TRACING_ON = PARTS === '1' || PARTS === 'tracing';
/** What the variant turns on, for its output line. */
export const OBSERVABILITY_PARTS = [
  ...(METRICS_ON ? ['metrics scraped every 1 s'] : []),
  ...(TRACING_ON ? ['a tracer provider with a discarding batch exporter'] : []),
].join(', ');

const SCRAPE_INTERVAL_MS = 1000;

/** Accepts every span and keeps none. */
class DiscardingExporter implements SpanExporter {
  spans = 0;
  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.spans += spans.length;
    done({ code: 0 }); // ExportResultCode.SUCCESS (@opentelemetry/core, not a dependency of ours)
  }
  async shutdown(): Promise<void> {}
}

export interface Observed {
  /** Scrapes taken and spans exported while the run lasted, and which parts were on. */
  detach(): Promise<{ scrapes: number; spans: number; metrics: boolean; tracing: boolean }>;
}

/** Registers the global tracer provider and attaches the metrics; call before engine.start(). */
export function observe(engine: Engine, storage: SqliteStorage): Observed {
  const exporter = new DiscardingExporter();
  const provider = TRACING_ON ? new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] }) : undefined;
  if (provider && !trace.setGlobalTracerProvider(provider)) throw new Error('bench:engine: a tracer provider was already registered');
  const metrics = METRICS_ON ? createMetrics({ store: createSqliteMonitoringStore(storage.db), engine, typeLabelLimit: 20, now: Date.now }) : undefined;
  let scrapes = 0;
  const timer = setInterval(() => {
    void metrics?.scrape(undefined).then(() => scrapes++);
  }, SCRAPE_INTERVAL_MS);
  return {
    async detach() {
      clearInterval(timer);
      if (metrics) {
        await metrics.scrape(undefined);
        scrapes++;
        metrics.close();
      }
      if (provider) {
        await provider.forceFlush();
        trace.disable();
        await provider.shutdown();
      }
      return { scrapes, spans: exporter.spans, metrics: METRICS_ON, tracing: TRACING_ON };
    },
  };
}
