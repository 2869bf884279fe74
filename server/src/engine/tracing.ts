/**
 * OpenTelemetry traces of dispatches and runs, through the optional peer `@opentelemetry/api`.
 * Nothing is imported until a tracer provider is registered with the API (read from the API's
 * global slot, without loading it): without one, dispatch and runs do no tracing work at all.
 *
 * One span per attempt is the rule: each attempt of a run is a CONSUMER span `process {queue}`
 * (task id, type, queue, attempt, dispatch time; a failure records the exception), and the handler
 * runs inside it. A dispatch made inside the caller's trace (a span active in its context) also
 * makes a PRODUCER span `send {queue}`, child of the caller's span, whose W3C context
 * (`traceparent`, `tracestate`) is stored with the task: every attempt, wherever and whenever it
 * runs, is a child of and linked to it. A dispatch outside any trace makes no span and stores
 * nothing: the first attempt starts the task's trace and the later attempts run in this process
 * join it as its children (a run recovered after a crash, or run by another instance, starts a
 * trace of its own; its task id and attempt attributes name it).
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

/** The API's global slots (read without loading the API). */
function registered(): { trace?: unknown; context?: unknown } | undefined {
  return (globalThis as Record<symbol, { trace?: unknown; context?: unknown } | undefined>)[OTEL_GLOBAL];
}

/** The registered tracer provider in the API's global slot (read without loading the API). */
function registeredProvider(): unknown {
  return registered()?.trace;
}

/**
 * Whether a context manager is registered. Without one the API's active context is always the
 * root one: no span can be active around a dispatch, and running a handler "inside" its attempt's
 * context changes nothing its own spans see, so neither is paid for.
 */
function contextManaged(): boolean {
  return registered()?.context !== undefined;
}

/** Whether a tracer provider is registered with the OpenTelemetry API (read without loading the API). */
export function providerRegistered(): boolean {
  return registeredProvider() !== undefined;
}

/** The tracer, asked of the provider once per registration rather than once per span. */
let cachedTracer: { provider: unknown; tracer: OtelApi.Tracer } | undefined;
function tracerOf(otel: Api): OtelApi.Tracer {
  const provider = registeredProvider();
  const cached = cachedTracer;
  if (cached !== undefined && cached.provider === provider) return cached.tracer;
  const tracer = otel.trace.getTracer(TRACER_NAME);
  cachedTracer = { provider, tracer };
  return tracer;
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

/**
 * The PRODUCER span of a dispatch made inside the caller's trace; undefined when no span is active
 * in the caller's context (the task's first attempt then starts its trace: see the module comment).
 */
export function startCallerDispatchSpan(otel: Api, task: TaskIdentity): DispatchSpan | undefined {
  if (!contextManaged()) return undefined;
  const caller = otel.trace.getSpanContext(otel.context.active());
  return caller !== undefined && otel.isSpanContextValid(caller) ? startDispatchSpan(otel, task) : undefined;
}

/** A PRODUCER span for a dispatch or a schedule's upsert, with the context to store with the row. */
export function startDispatchSpan(otel: Api, task: TaskIdentity, operation: 'send' | 'upsert' = 'send'): DispatchSpan {
  const span = tracerOf(otel).startSpan(
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

/** The span context an attempt's later attempts continue (the first attempt's, for a task that stored none). */
export type TraceOrigin = OtelApi.SpanContext;

export interface RunSpan {
  /**
   * Calls `handler(request, context)` with the span as the active one (the handler's own spans
   * become its children); the arguments are passed through rather than closed over, so an attempt
   * makes no closure for it.
   */
  call<R, C, T>(handler: (request: R, context: C) => T, request: R, context: C): T;
  end(error?: unknown): void;
  /** This attempt's span context, the origin of the later attempts of a task that stored none. */
  readonly origin: TraceOrigin;
}

class AttemptSpan implements RunSpan {
  constructor(
    private readonly otel: Api,
    private readonly span: OtelApi.Span,
    private readonly parent: OtelApi.Context,
  ) {}

  call<R, C, T>(handler: (request: R, context: C) => T, request: R, context: C): T {
    // The attempt's context is made only where a context manager can carry it to the handler.
    if (!contextManaged()) return handler(request, context);
    return this.otel.context.with(this.otel.trace.setSpan(this.parent, this.span), handler, undefined, request, context);
  }

  end(error?: unknown): void {
    if (error !== undefined) fail(this.otel, this.span, error);
    this.span.end();
  }

  get origin(): TraceOrigin {
    return this.span.spanContext();
  }
}

type RunTask = TaskIdentity & Partial<StoredTraceContext> & { parent_task_id?: string | null; created_at?: number };

/**
 * A CONSUMER span for one attempt of a task; undefined without tracing. Its origin is the stored
 * dispatch context, else `earlier` (the first attempt's context, kept by the run in memory): the
 * span is a child of and linked to it. Without either it is a root span. An occurrence of a
 * schedule starts a trace of its own, linked to the schedule's upsert (one trace per schedule
 * would grow without end).
 */
export function startRunSpan(task: RunTask, attempt: number, earlier?: TraceOrigin): RunSpan | undefined {
  const otel = loadedTracing();
  if (!otel) return undefined;
  const stored = task.traceparent ? remoteContext(otel, task) : undefined;
  const occurrence = task.parent_task_id !== undefined && task.parent_task_id !== null;
  const origin = stored ?? (occurrence ? undefined : earlier);
  const parent = origin && !occurrence ? otel.trace.setSpanContext(otel.ROOT_CONTEXT, origin) : otel.ROOT_CONTEXT;
  const attributes: OtelApi.Attributes = {
    'messaging.system': MESSAGING_SYSTEM,
    'messaging.destination.name': task.queue,
    'messaging.message.id': task.id,
    'messaging.operation.type': 'process',
    'messaging.operation.name': 'process',
    'svc.task.type': task.type,
    'svc.task.attempt': attempt,
  };
  if (task.created_at !== undefined) attributes['svc.task.dispatched_at'] = isoTime(task.created_at);
  const span = tracerOf(otel).startSpan(
    processSpanName(task.queue),
    origin ? { kind: otel.SpanKind.CONSUMER, links: [{ context: origin }], attributes } : { kind: otel.SpanKind.CONSUMER, attributes },
    parent,
  );
  return new AttemptSpan(otel, span, parent);
}

/** The attempt spans' names by queue (one string per queue rather than one per attempt; at most 64 kept). */
const processNames = new Map<string, string>();
function processSpanName(queue: string): string {
  let name = processNames.get(queue);
  if (name !== undefined) return name;
  name = `process ${queue}`;
  if (processNames.size < 64) processNames.set(queue, name);
  return name;
}

/** The last instant written as ISO 8601 text: tasks dispatched in the same millisecond share it. */
let lastIso: { at: number; text: string } = { at: Number.NaN, text: '' };
function isoTime(at: number): string {
  if (lastIso.at !== at) lastIso = { at, text: new Date(at).toISOString() };
  return lastIso.text;
}

function fail(otel: Api, span: OtelApi.Span, error: unknown): void {
  if (!span.isRecording()) return;
  const err = error instanceof Error ? error : new Error(String(error));
  span.recordException(err);
  span.setStatus({ code: otel.SpanStatusCode.ERROR, message: err.message });
}
