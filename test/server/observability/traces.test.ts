import { SpanStatusCode, trace } from '@opentelemetry/api';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../../server/src/engine/Engine.js';
import { openSqliteStorage } from '../../../server/src/index.js';
import { createPostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import { bundledScript } from '../../fixtures/bundledScript.js';
import { closeAll, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';
import { serve, type Served } from '../../fixtures/server/servedMonitoring.js';
import { createTestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { expectChildAndLink, fromTraceparent, useInMemoryTracing, withCallerSpan } from '../../fixtures/server/tracing.js';

let tracing: ReturnType<typeof useInMemoryTracing> | undefined;
let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
  await closeAll();
  await tracing?.stop();
  tracing = undefined;
});

describe('traces from dispatch to run', () => {
  it('without a tracer provider nothing is traced and nothing is stored', async () => {
    const h = harness();
    h.engine.handle('plain', async () => undefined);
    await h.engine.start();
    const id = await h.engine.dispatch('plain', {});
    await waitFor(async () => (await h.status(id)) === 'Completed', 5000, 'completed');
    expect((await h.row(id)).traceparent).toBeNull();
  });

  it("a retried task dispatched inside the caller's trace: one PRODUCER span, child of the caller's span; a CONSUMER span per attempt, each a child of and linked to the dispatch; the failure recorded", async () => {
    tracing = useInMemoryTracing();
    const h = harness({ pollIntervalMs: 20 });
    let calls = 0;
    h.engine.handle(
      'mail.send',
      async () => {
        if (++calls === 1) throw new Error('smtp down');
      },
      { retry: { attempts: 2, backoffMs: 10 } },
    );
    await h.engine.start();
    served = await serve({ engine: h.engine, storage: h.storage }, { enableAuthentication: false });
    const { result: id, caller } = await withCallerSpan(() => h.engine.dispatch('mail.send', { to: 'a@b.c' }));
    await waitFor(() => tracing!.consumers().length === 2, 5000, 'two attempts');

    const [producer] = tracing.producers();
    expect(tracing.producers()).toHaveLength(1);
    expect(producer!.name).toBe('send default');
    expect(producer!.parentSpanContext?.spanId).toBe(caller.spanId);
    expect(producer!.spanContext().traceId).toBe(caller.traceId);
    expect(producer!.attributes).toMatchObject({
      'messaging.system': 'svc-monitor',
      'messaging.destination.name': 'default',
      'messaging.message.id': id,
      'messaging.operation.type': 'send',
      'svc.task.type': 'mail.send',
    });
    const origin = producer!.spanContext();
    expect((await h.row(id)).traceparent).toBe(`00-${origin.traceId}-${origin.spanId}-01`);

    const [first, second] = [...tracing.consumers()].sort((a, b) => Number(a.attributes['svc.task.attempt']) - Number(b.attributes['svc.task.attempt']));
    for (const span of [first!, second!]) {
      expect(span.name).toBe('process default');
      expectChildAndLink(span, origin);
      expect(span.attributes).toMatchObject({
        'messaging.system': 'svc-monitor',
        'messaging.destination.name': 'default',
        'messaging.message.id': id,
        'messaging.operation.type': 'process',
        'svc.task.type': 'mail.send',
      });
    }
    expect(first!.attributes['svc.task.attempt']).toBe(1);
    expect(first!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'smtp down' });
    expect(first!.events.map((e) => e.name)).toEqual(['exception']);
    expect(first!.events[0]!.attributes?.['exception.message']).toBe('smtp down');
    expect(second!.attributes['svc.task.attempt']).toBe(2);
    expect(second!.status.code).toBe(SpanStatusCode.UNSET);

    // The task detail names the trace: the caller's.
    const detail = (await (await fetch(`${served.api}/tasks/${id}`)).json()) as { traceId?: string };
    expect(detail.traceId).toBe(caller.traceId);
  });

  it('a retried task dispatched outside any trace: no PRODUCER span and nothing stored; the first attempt starts the trace, the second is its child and linked to it; the handler\'s spans are children of their attempt', async () => {
    tracing = useInMemoryTracing();
    const h = harness({ pollIntervalMs: 20 });
    let calls = 0;
    h.engine.handle(
      'mail.send',
      async () => {
        trace.getTracer('host').startSpan('smtp connect').end();
        if (++calls === 1) throw new Error('smtp down');
      },
      { retry: { attempts: 2, backoffMs: 10 } },
    );
    await h.engine.start();
    const before = Date.now();
    const id = await h.engine.dispatch('mail.send', { to: 'a@b.c' });
    await waitFor(() => tracing!.consumers().length === 2, 5000, 'two attempts');

    expect(tracing.producers()).toHaveLength(0);
    expect((await h.row(id)).traceparent).toBeNull();
    const [first, second] = [...tracing.consumers()].sort((a, b) => Number(a.attributes['svc.task.attempt']) - Number(b.attributes['svc.task.attempt']));
    expect(first!.parentSpanContext).toBeUndefined();
    expect(first!.links).toEqual([]);
    expectChildAndLink(second!, first!.spanContext());
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
      const dispatchedAt = Date.parse(String(span.attributes['svc.task.dispatched_at']));
      expect(dispatchedAt).toBeGreaterThanOrEqual(before - 1);
      expect(dispatchedAt).toBeLessThanOrEqual(Date.now());
    }
    expect(first!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'smtp down' });
    expect(second!.status.code).toBe(SpanStatusCode.UNSET);
    const handlerSpans = tracing.spans().filter((s) => s.name === 'smtp connect');
    expect(handlerSpans.map((s) => s.parentSpanContext?.spanId).sort()).toEqual([first!.spanContext().spanId, second!.spanContext().spanId].sort());
  });

  it('a process killed mid-run (its dispatch inside a trace): the engine that recovers the task continues the stored trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-traced-crash-'));
    const file = join(dir, 'tasks.db');
    try {
      const child = spawn(process.execPath, [bundledScript(resolve(__dirname, '../../fixtures/server/tracedCrashChild.ts')), file], {
        cwd: resolve(__dirname, '../../..'),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise((r) => child.on('exit', r));
      await waitFor(() => out.includes('running'), 30_000, 'the child running the task');
      child.kill('SIGKILL');
      await exited;

      tracing = useInMemoryTracing();
      const storage = openSqliteStorage({ file });
      const row = storage.db.prepare(`SELECT id, status, traceparent FROM tasks`).get() as { id: string; status: string; traceparent: string };
      expect(row.status).toBe('InProgress');
      expect(row.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      const engine = createEngine({ storage, pollIntervalMs: 20 });
      engine.handle('Traced.Work', async () => undefined);
      await engine.start();
      await waitFor(() => tracing!.consumers().length === 1, 10_000, 'the recovered run');
      await engine.stop();
      storage.close();
      expect(tracing.producers()).toHaveLength(0);
      expectChildAndLink(tracing.consumers()[0]!, fromTraceparent(row.traceparent));
      expect(tracing.consumers()[0]!.attributes['messaging.message.id']).toBe(row.id);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("a schedule's occurrences start traces of their own, each linked to the schedule's upsert", async () => {
    tracing = useInMemoryTracing();
    const h = harness({ pollIntervalMs: 20 });
    let runs = 0;
    h.engine.handle('report.tick', async () => void runs++);
    const scheduleId = await h.engine.schedules.upsert({ key: 'ticks', type: 'report.tick', every: '1s', misfire: { policy: 'Skip' } });
    await h.engine.start();
    await waitFor(() => tracing!.consumers().length >= 1, 10_000, 'an occurrence run');
    const upsert = tracing.producers().find((s) => s.name === 'upsert schedule ticks');
    expect(upsert, 'the upsert span').toBeDefined();
    expect(upsert!.attributes['messaging.operation.type']).toBe('create');
    const origin = upsert!.spanContext();
    expect(fromTraceparent((await h.row(scheduleId)).traceparent as string)).toEqual({ traceId: origin.traceId, spanId: origin.spanId });
    const run = tracing.consumers()[0]!;
    expect(run.parentSpanContext).toBeUndefined();
    expect(run.spanContext().traceId).not.toBe(origin.traceId);
    expect(run.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId }))).toEqual([{ traceId: origin.traceId, spanId: origin.spanId }]);
  });

  it("PostgreSQL: dispatched inside the caller's trace on one instance, run on another, in the same trace", async () => {
    tracing = useInMemoryTracing();
    const database = await createTestDatabase('svc_traces');
    const storageA = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 2 });
    const storageB = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 2 });
    const storeA = createPostgresEngineStore(storageA);
    const storeB = createPostgresEngineStore(storageB);
    const a = createEngine({ store: storeA, pollIntervalMs: 20 });
    const b = createEngine({ store: storeB, pollIntervalMs: 20 });
    try {
      const ran: string[] = [];
      // Instance A dispatches but never starts; instance B runs.
      a.handle('pg.work', async () => undefined);
      b.handle('pg.work', async (_req, ctx) => void ran.push(ctx.taskId));
      await b.start();
      const { result: id } = await withCallerSpan(() => a.dispatch('pg.work', {}));
      await waitFor(() => tracing!.consumers().length === 1, 10_000, 'the run on instance B');
      expect(ran).toEqual([id]);
      const [producer] = tracing.producers();
      expectChildAndLink(tracing.consumers()[0]!, producer!.spanContext());
      const stored = await storageB.query<{ traceparent: string }>(`SELECT traceparent FROM tasks WHERE id = $1`, [id]);
      expect(fromTraceparent(stored.rows[0]!.traceparent)).toEqual({ traceId: producer!.spanContext().traceId, spanId: producer!.spanContext().spanId });
    } finally {
      await b.stop();
      await a.stop();
      await storeA.dispose();
      await storeB.dispose();
      await storageA.close();
      await storageB.close();
      await database.drop();
    }
  }, 60_000);
});
