/**
 * OpenTelemetry traces from dispatch to run, through the optional peer `@opentelemetry/api`.
 * Nothing is imported until a tracer provider is registered with the API (read from the API's
 * global slot, without loading it): without one, dispatch and runs do no tracing work at all.
 *
 * Dispatch starts a PRODUCER span `send {queue}` whose W3C context (`traceparent`, `tracestate`)
 * is stored with the task. Each attempt of a run starts a CONSUMER span `process {queue}`, a child
 * of that stored context and linked to it, so retries, runs after a crash and runs on another
 * instance all continue the trace of the dispatch. The handler runs inside the attempt's span.
 */
import type * as OtelApi from '@opentelemetry/api';

type Api = typeof OtelApi;

/** Where @opentelemetry/api 1.x keeps its registered globals. */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');
const TRACER_NAME = 'svc-monitor-server';
const MESSAGING_SYSTEM = 'svc-monitor';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

let api: Api | undefined;
let loading: Promise<Api | undefined> | undefined;

/** Whether a tracer provider is registered with the OpenTelemetry API (read without loading the API). */
export function providerRegistered(): boolean {
  const slot = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[OTEL_GLOBAL];
  return slot?.trace !== undefined;
}

/** The API when a provider is registered (loading it on first need); undefined otherwise. */
export async function loadTracing(): Promise<Api | undefined> {
  if (!providerRegistered()) return undefined;
  if (api) return api;
  loading ??= import('@opentelemetry/api').then(
    (m) => (api = m),
    () => undefined, // registered by another copy but not resolvable from here: no tracing
  );
  return loading;
}

/** The API if already loaded and a provider is still registered (runs never wait for the import). */
export function loadedTracing(): Api | undefined {
  if (!providerRegistered()) return undefined;
  if (!api) void loadTracing();
  return api;
}

export interface StoredTraceContext {
  traceparent: string | null;
  tracestate: string | null;
}

export interface DispatchSpan extends StoredTraceContext {
  end(error?: unknown): void;
}

interface TaskIdentity {
  id: string;
  type: string;
  queue: string;
}

/** A PRODUCER span for a dispatch, with the context to store with the task; undefined without tracing. */
export function startDispatchSpan(otel: Api, task: TaskIdentity, operation: 'send' | 'upsert' = 'send'): DispatchSpan {
  const span = otel.trace.getTracer(TRACER_NAME).startSpan(
    operation === 'send' ? `send ${task.queue}` : `upsert schedule ${task.id}`,
    {
      kind: otel.SpanKind.PRODUCER,
      attributes: {
        'messaging.system': MESSAGING_SYSTEM,
        'messaging.destination.name': task.queue,
        'messaging.message.id': task.id,
        'messaging.operation.type': operation === 'send' ? 'send' : 'create',
        'messaging.operation.name': operation,
        'svc.task.type': task.type,
      },
    },
    otel.context.active(),
  );
  const sc = span.spanContext();
  const valid = otel.isSpanContextValid(sc);
  return {
    traceparent: valid ? `00-${sc.traceId}-${sc.spanId}-${sc.traceFlags.toString(16).padStart(2, '0')}` : null,
    tracestate: valid ? sc.traceState?.serialize() || null : null,
    end(error) {
      if (error !== undefined) fail(otel, span, error);
      span.end();
    },
  };
}

/** A stored context as a remote span context (undefined when absent or malformed). */
function remoteContext(otel: Api, stored: Partial<StoredTraceContext>): OtelApi.SpanContext | undefined {
  const m = stored.traceparent ? TRACEPARENT.exec(stored.traceparent) : null;
  if (!m) return undefined;
  const sc: OtelApi.SpanContext = { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16), isRemote: true };
  if (stored.tracestate) sc.traceState = otel.createTraceState(stored.tracestate);
  return otel.isSpanContextValid(sc) ? sc : undefined;
}

export interface RunSpan {
  /** Runs `fn` with the span as the active one (the handler's own spans become its children). */
  within<T>(fn: () => T): T;
  end(error?: unknown): void;
}

/**
 * A CONSUMER span for one attempt of a task, child of and linked to its dispatch; undefined
 * without tracing. An occurrence of a schedule starts a trace of its own, linked to the schedule's
 * upsert (one trace per schedule would grow without end).
 */
export function startRunSpan(task: TaskIdentity & Partial<StoredTraceContext> & { parent_task_id?: string | null }, attempt: number): RunSpan | undefined {
  const otel = loadedTracing();
  if (!otel) return undefined;
  const origin = remoteContext(otel, task);
  const occurrence = task.parent_task_id !== undefined && task.parent_task_id !== null;
  const parent = origin && !occurrence ? otel.trace.setSpanContext(otel.ROOT_CONTEXT, origin) : otel.ROOT_CONTEXT;
  const span = otel.trace.getTracer(TRACER_NAME).startSpan(
    `process ${task.queue}`,
    {
      kind: otel.SpanKind.CONSUMER,
      links: origin ? [{ context: origin }] : [],
      attributes: {
        'messaging.system': MESSAGING_SYSTEM,
        'messaging.destination.name': task.queue,
        'messaging.message.id': task.id,
        'messaging.operation.type': 'process',
        'messaging.operation.name': 'process',
        'svc.task.type': task.type,
        'svc.task.attempt': attempt,
      },
    },
    parent,
  );
  const active = otel.trace.setSpan(parent, span);
  return {
    within: (fn) => otel.context.with(active, fn),
    end(error) {
      if (error !== undefined) fail(otel, span, error);
      span.end();
    },
  };
}

function fail(otel: Api, span: OtelApi.Span, error: unknown): void {
  const err = error instanceof Error ? error : new Error(String(error));
  span.recordException(err);
  span.setStatus({ code: otel.SpanStatusCode.ERROR, message: err.message });
}
