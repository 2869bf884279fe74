import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { Counter, Gauge, Registry } from 'prom-client';
import type { HubStats } from '../../hub/createHub.js';
import type { MonitoringStore } from '../../storage/MonitoringStore.js';
import type { DeliveryCounts } from '../alerts/WebhookSender.js';
import { registerEngineMetrics, type MeteredEngine } from './engineMetrics.js';
import { openMetricsText } from './openMetricsText.js';
import { registerReadModelGauges, type GaugeExporter } from './readModelGauges.js';
import { registerRuntimeMetrics } from './runtimeMetrics.js';

export interface MetricsSources {
  store: MonitoringStore;
  /** The engine of this process (none: a standalone registration exports the global gauges only). */
  engine?: MeteredEngine & { store?: unknown };
  hub?: { stats(): HubStats };
  /** The alert webhooks' delivery counts (absent: no alert rules). */
  alerts?: { stats(): DeliveryCounts };
  typeLabelLimit: number;
  now: () => number;
  /** Whether this process exports the store-read gauges (absent: it does; one process on its own store). */
  storeGauges?: GaugeExporter;
}

export interface MonitoringMetrics {
  /** The scrape in the format the `Accept` header asks for (OpenMetrics or the Prometheus text format). */
  scrape(accept: string | undefined): Promise<{ contentType: string; body: string }>;
  /** Counts one answered HTTP request by its catalogue route name and status. */
  countRequest(route: string, status: number): void;
  close(): void;
}

/** The engine's instance id when its store has one (PostgreSQL), else this host and process. */
function instanceOf(engine: { store?: unknown }): string {
  const store = engine.store as { instanceId?: unknown } | undefined;
  return typeof store?.instanceId === 'string' ? store.instanceId : `${hostname()}/${process.pid}`;
}

/** This package's version (its package.json sits three folders up from this module in src and in dist). */
function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The monitoring's own Prometheus registry (never prom-client's global one) with every family. */
export function createMetrics(sources: MetricsSources): MonitoringMetrics {
  const registry = new Registry();
  const registers = [registry];
  registerRuntimeMetrics(registry);
  new Gauge({
    name: 'svc_build_info',
    help: 'Always 1; its labels say which svc-monitor-server version runs on which Node.js version. Per process.',
    labelNames: ['version', 'node'],
    registers,
  }).set({ version: packageVersion(), node: process.versions.node }, 1);
  registerReadModelGauges(registers, sources.store, sources.now, sources.storeGauges ?? (async () => true));
  const stopEngine = sources.engine
    ? registerEngineMetrics(registers, sources.engine, instanceOf(sources.engine), sources.typeLabelLimit)
    : () => undefined;

  const hub = sources.hub;
  if (hub) {
    new Gauge({
      name: 'svc_hub_connections',
      help: 'Open connections of the live-event hub, by transport. Per process.',
      labelNames: ['transport'],
      registers,
      collect() {
        this.reset();
        for (const [transport, n] of Object.entries(hub.stats().connectionsByTransport)) this.set({ transport }, n);
      },
    });
    new Counter({
      name: 'svc_hub_messages_sent_total',
      help: 'Hub messages (events and invocations) written to connections. Per process.',
      registers,
      collect() {
        this.reset();
        this.inc(hub.stats().messagesSent);
      },
    });
    new Counter({
      name: 'svc_hub_rejections_total',
      help: 'New hub connections refused, by status: 429 (a client at its connection cap), 503 (the hub at its cap). Per process.',
      labelNames: ['status'],
      registers,
      collect() {
        this.reset();
        const { rejected } = hub.stats();
        this.inc({ status: '429' }, rejected[429]);
        this.inc({ status: '503' }, rejected[503]);
      },
    });
    new Counter({
      name: 'svc_hub_slow_client_closes_total',
      help: 'Hub connections closed because their send buffer showed they could not keep up. Per process.',
      registers,
      collect() {
        this.reset();
        this.inc(hub.stats().slowClientCloses);
      },
    });
  }
  const alerts = sources.alerts;
  new Counter({
    name: 'svc_alert_deliveries_total',
    help: 'Alert webhook deliveries by result: delivered (a message accepted), retried (an attempt failed and is tried again), failed (a message given up), dropped (a message over the waiting bound). Per process.',
    labelNames: ['result'],
    registers,
    collect() {
      this.reset();
      const counts = alerts?.stats() ?? { delivered: 0, retried: 0, failed: 0, dropped: 0 };
      for (const result of ['delivered', 'retried', 'failed', 'dropped'] as const) this.inc({ result }, counts[result]);
    },
  });
  const requests = new Counter({
    name: 'svc_http_requests_total',
    help: 'Answered monitoring HTTP requests by route (the route catalogue name) and status. Per process.',
    labelNames: ['route', 'status'],
    registers,
  });

  return {
    async scrape(accept) {
      if (accept !== undefined && accept.includes('application/openmetrics-text')) {
        return { contentType: Registry.OPENMETRICS_CONTENT_TYPE, body: await openMetricsText(registry) };
      }
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    countRequest(route, status) {
      requests.inc({ route, status: String(status) });
    },
    close() {
      stopEngine();
      registry.clear();
    },
  };
}
