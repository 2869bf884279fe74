import { SpanKind, trace, type SpanContext } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

/** Registers a global tracer provider exporting to memory; `stop` unregisters it (the test worker is shared). */
export function useInMemoryTracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  trace.setGlobalTracerProvider(provider);
  return {
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    producers: () => exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.PRODUCER),
    consumers: () => exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CONSUMER),
    async stop() {
      trace.disable();
      await provider.shutdown();
    },
  };
}

/** The span context a stored `traceparent` names. */
export function fromTraceparent(traceparent: string): Pick<SpanContext, 'traceId' | 'spanId'> {
  const [, traceId, spanId] = traceparent.split('-');
  return { traceId: traceId!, spanId: spanId! };
}

/** A consumer span is a child of `origin` and links to it. */
export function expectChildAndLink(span: ReadableSpan, origin: Pick<SpanContext, 'traceId' | 'spanId'>): void {
  const parent = span.parentSpanContext;
  if (parent?.traceId !== origin.traceId || parent.spanId !== origin.spanId) {
    throw new Error(`${span.name}: parent ${JSON.stringify(parent)} is not ${JSON.stringify(origin)}`);
  }
  if (span.spanContext().traceId !== origin.traceId) throw new Error(`${span.name}: another trace`);
  const link = span.links[0]?.context;
  if (link?.traceId !== origin.traceId || link.spanId !== origin.spanId) throw new Error(`${span.name}: no link to ${JSON.stringify(origin)}`);
}
