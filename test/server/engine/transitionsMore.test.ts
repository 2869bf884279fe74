import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, deferred, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

afterEach(closeAll);

describe('more status transitions and engine behaviour', () => {
  it('Pending → WaitingQueue when its queue is at capacity at due time, then admitted', async () => {
    // The engine clock moves only when the test moves it: the delayed row is Pending until then.
    let now = Date.parse('2026-06-01T12:00:00.000Z');
    const h = harness({ queues: { tight: { concurrency: 1, capacity: 1 } }, clock: () => now });
    const gate = deferred();
    h.engine.handle('T.Block', () => gate.promise);
    h.engine.handle('T.Job', () => undefined);
    await h.engine.start();
    const blocker = await h.engine.dispatch('T.Block', {}, { queue: 'tight' });
    await waitFor(async () => (await h.status(blocker)) === 'InProgress');
    const filler = await h.engine.dispatch('T.Job', {}, { queue: 'tight' });
    expect((await h.status(filler))).toBe('Queued');
    const delayed = await h.engine.dispatch('T.Job', {}, { queue: 'tight', delayMs: 30 });
    expect((await h.status(delayed))).toBe('Pending');
    now += 30;
    await waitFor(async () => (await h.status(delayed)) === 'WaitingQueue');
    gate.resolve();
    await waitFor(async () => (await h.status(delayed)) === 'Completed' && (await h.status(filler)) === 'Completed');
    expect((await h.audits(delayed))).toEqual(['Pending', 'WaitingQueue', 'Queued', 'InProgress', 'Completed']);
  });

  it('handlers get their context; events carry queue, handler, parameters and omit absent fields', async () => {
    const h = harness({ queues: { mail: { concurrency: 1 } } });
    let seen: Record<string, unknown> = {};
    h.engine.handle('Mail.Send', (req, ctx) => {
      seen = { req, taskId: ctx.taskId, type: ctx.type, queue: ctx.queue, attempt: ctx.attempt, runNumber: ctx.runNumber, taskKey: ctx.taskKey };
    }, { handlerName: 'Mail.Handlers.SendMailHandler' });
    await h.engine.start();
    const id = await h.engine.dispatch('Mail.Send', { to: 'a@b.c' }, { queue: 'mail', taskKey: 'mail-1' });
    await waitFor(async () => h.events.some((e) => e.kind === 'Completed'));
    expect(seen).toEqual({ req: { to: 'a@b.c' }, taskId: id, type: 'Mail.Send', queue: 'mail', attempt: 1, runNumber: 1, taskKey: 'mail-1' });
    expect((await h.row(id))['handler']).toBe('Mail.Handlers.SendMailHandler');
    const started = h.events.find((e) => e.kind === 'Started')!;
    expect(started).toMatchObject({
      taskId: id, severity: 'Information', taskType: 'Mail.Send', taskHandlerType: 'Mail.Handlers.SendMailHandler',
      taskParameters: '{"to":"a@b.c"}', queueName: 'mail', attempt: 1,
    });
    expect(Number.isNaN(Date.parse(started.eventDateUtc))).toBe(false);
    for (const e of h.events) for (const v of Object.values(e)) expect(v).not.toBeNull();
  });

  it('a listener that throws is reported and does not stop the engine', async () => {
    const errors: string[] = [];
    const h = harness({ onError: (_e, where) => errors.push(where) });
    h.engine.on('event', () => {
      throw new Error('listener bug');
    });
    h.engine.handle('L.Job', () => undefined);
    await h.engine.start();
    const a = await h.engine.dispatch('L.Job', {});
    const b = await h.engine.dispatch('L.Job', {});
    await waitFor(async () => (await h.status(a)) === 'Completed' && (await h.status(b)) === 'Completed');
    expect(errors.some((w) => w.startsWith('event listener'))).toBe(true);
  });

  it('off() removes a listener; dispatch before start runs at start', async () => {
    const h = harness();
    const got: string[] = [];
    const l = (e: { kind: string }) => got.push(e.kind);
    h.engine.on('event', l);
    h.engine.off('event', l);
    h.engine.handle('P.Job', () => undefined);
    const id = await h.engine.dispatch('P.Job', {});
    expect((await h.status(id))).toBe('Queued');
    await h.engine.start();
    await waitFor(async () => (await h.status(id)) === 'Completed');
    expect(got).toEqual([]);
  });
});
