// bench:engine's observability variants (BENCH_OBSERVABILITY=1 or --observability: metrics and
// tracing on together, and tracing alone; =metrics or =tracing: that part alone): the same
// workload with the monitoring's metrics attached to the engine and/or an OpenTelemetry tracer
// provider registered, so their cost shows as a ratio to the plain runs and to BullMQ in one run.
// - Metrics: the monitoring's own registry (createMetrics) over the engine and its store, scraped
//   once a second while the run lasts (a Prometheus at a 1 s interval: pessimistic).
// - Traces: a BasicTracerProvider whose BatchSpanProcessor exports to an exporter that drops
//   every span, so the spans are made, batched and handed over, and nothing else is paid.
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Engine, SqliteStorage } from '../server/src/index.js';
import { createMetrics } from '../server/src/monitoring/metrics/createMetrics.js';
import { createSqliteMonitoringStore } from '../server/src/storage/sqlite/monitoring/createSqliteMonitoringStore.js';

/** One observed run's parts, and the keys and words its figures go under. */
export interface ObservedVariant {
  metrics: boolean;
  tracing: boolean;
  /** Stem of its JSON keys: `endToEnd${stem}PerSec`, `${lower stem}VsPlain`, `ratio${stem}VsBullmq`. */
  stem: 'Observed' | 'Traced' | 'Metered';
  /** What it turns on, for its output lines. */
  parts: string;
}

const METRICS_WORDS = 'metrics scraped every 1 s';
const TRACING_WORDS = 'a tracer provider with a discarding batch exporter';
const BOTH: ObservedVariant = { metrics: true, tracing: true, stem: 'Observed', parts: `${METRICS_WORDS}, ${TRACING_WORDS}` };
const TRACING_ALONE: ObservedVariant = { metrics: false, tracing: true, stem: 'Traced', parts: `${TRACING_WORDS} alone` };
const METRICS_ALONE: ObservedVariant = { metrics: true, tracing: false, stem: 'Metered', parts: `${METRICS_WORDS} alone` };

const PARTS = process.env['BENCH_OBSERVABILITY'] ?? (process.argv.includes('--observability') ? '1' : undefined);
if (PARTS !== undefined && !['1', 'metrics', 'tracing'].includes(PARTS)) throw new Error(`BENCH_OBSERVABILITY must be 1, metrics or tracing (got "${PARTS}")`);
/**
 * The observed runs of each round: with `1`, metrics and tracing together and tracing alone (the
 * issue's figure is tracing's); with `metrics` or `tracing`, that part alone. Empty: no variant.
 */
export const OBSERVED_VARIANTS: ObservedVariant[] = PARTS === undefined ? [] : PARTS === '1' ? [BOTH, TRACING_ALONE] : PARTS === 'tracing' ? [TRACING_ALONE] : [METRICS_ALONE];

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

/** Registers the global tracer provider and/or attaches the metrics, as `variant` says; call before engine.start(). */
export function observe(engine: Engine, storage: SqliteStorage, variant: ObservedVariant): Observed {
  const exporter = new DiscardingExporter();
  const provider = variant.tracing ? new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] }) : undefined;
  if (provider && !trace.setGlobalTracerProvider(provider)) throw new Error('bench:engine: a tracer provider was already registered');
  const metrics = variant.metrics ? createMetrics({ store: createSqliteMonitoringStore(storage.db), engine, typeLabelLimit: 20, now: Date.now }) : undefined;
  let scrapes = 0;
  const timer = metrics
    ? setInterval(() => {
      void metrics.scrape(undefined).then(() => scrapes++);
    }, SCRAPE_INTERVAL_MS)
    : undefined;
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
      return { scrapes, spans: exporter.spans, metrics: variant.metrics, tracing: variant.tracing };
    },
  };
}
