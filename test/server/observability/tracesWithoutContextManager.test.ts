import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

// A host may register a tracer provider without a context manager (a BasicTracerProvider not
// `register()`ed). Its traces still hold one CONSUMER span per attempt, each whole.
let provider: BasicTracerProvider | undefined;
afterEach(async () => {
  await closeAll();
  trace.disable();
  await provider?.shutdown();
  provider = undefined;
});

describe('traces with a tracer provider and no context manager', () => {
  it('every attempt is a CONSUMER span with its attributes and outcome; the handler runs; a later attempt is a child of and linked to the first; nothing is stored with the row', async () => {
    const exporter = new InMemorySpanExporter();
    provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
    const h = harness({ pollIntervalMs: 20 });
    let calls = 0;
    h.engine.handle(
      'mail.send',
      () => {
        // Outside a context manager, no span is ever active in a handler.
        expect(trace.getActiveSpan()).toBeUndefined();
        if (++calls === 1) throw new Error('smtp down');
      },
      { retry: { attempts: 2, backoffMs: 10 } },
    );
    await h.engine.start();
    const id = await h.engine.dispatch('mail.send', { to: 'a@b.c' });
    await waitFor(async () => (await h.status(id)) === 'Completed', 5000, 'completed');
    await waitFor(() => exporter.getFinishedSpans().length === 2, 5000, 'two spans');

    const spans = exporter.getFinishedSpans();
    expect(spans.every((s) => s.kind === SpanKind.CONSUMER)).toBe(true);
    const [first, second] = [...spans].sort((a, b) => Number(a.attributes['svc.task.attempt']) - Number(b.attributes['svc.task.attempt']));
    for (const [span, attempt] of [[first!, 1], [second!, 2]] as const) {
      expect(span.name).toBe('process default');
      expect(span.attributes).toMatchObject({
        'messaging.system': 'svc-monitor',
        'messaging.destination.name': 'default',
        'messaging.message.id': id,
        'messaging.operation.type': 'process',
        'svc.task.type': 'mail.send',
        'svc.task.attempt': attempt,
      });
      expect(new Date(String(span.attributes['svc.task.dispatched_at'])).toISOString()).toBe(span.attributes['svc.task.dispatched_at']);
    }
    expect(first!.status.code).toBe(SpanStatusCode.ERROR);
    expect(first!.events.some((e) => e.name === 'exception')).toBe(true);
    expect(first!.parentSpanContext).toBeUndefined();
    expect(second!.parentSpanContext?.spanId).toBe(first!.spanContext().spanId);
    expect(second!.links[0]?.context.spanId).toBe(first!.spanContext().spanId);
    expect((await h.row(id)).traceparent).toBeNull();
  });
});
