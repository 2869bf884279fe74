import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, deferred, harness, sleep } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

afterEach(closeAll);

describe('queues, capacity, delays and rate-limit throttling', () => {
  it('beyond capacity rows wait as WaitingQueue and are admitted oldest first', async () => {
    const h = harness({ queues: { small: { concurrency: 1, capacity: 2 } } });
    const gate = deferred();
    const order: number[] = [];
    h.engine.handle('Q.Job', async (req: { n: number }) => {
      order.push(req.n);
      if (req.n === 0) await gate.promise;
    });
    await h.engine.start();
    const first = await h.engine.dispatch('Q.Job', { n: 0 }, { queue: 'small' });
    await waitFor(async () => (await h.status(first)) === 'InProgress');
    const ids: string[] = [];
    for (let n = 1; n <= 5; n++) ids.push(await h.engine.dispatch('Q.Job', { n }, { queue: 'small' }));
    expect(await h.statuses(ids)).toEqual(['Queued', 'Queued', 'WaitingQueue', 'WaitingQueue', 'WaitingQueue']);
    gate.resolve();
    await waitFor(async () => (await h.statuses(ids)).every((s) => s === 'Completed'));
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect((await h.audits(ids[4]!))).toEqual(['WaitingQueue', 'Queued', 'InProgress', 'Completed']);
    expect((await h.audits(ids[0]!))).toEqual(['Queued', 'InProgress', 'Completed']);
  });

  it('a task naming a queue that was not configured runs on default', async () => {
    const h = harness({ queues: { mail: { concurrency: 1 } } });
    const ran: string[] = [];
    h.engine.handle('Q.Job', (_req, ctx) => void ran.push(ctx.queue));
    await h.engine.start();
    const id = await h.engine.dispatch('Q.Job', {}, { queue: 'mial' });
    const ok = await h.engine.dispatch('Q.Job', {}, { queue: 'mail' });
    await waitFor(async () => (await h.status(id)) === 'Completed' && (await h.status(ok)) === 'Completed');
    const queueOf = async (taskId: string) => (await h.probe.value('SELECT queue FROM tasks WHERE id = ?', taskId));
    expect(await queueOf(id)).toBe('default');
    expect(await queueOf(ok)).toBe('mail');
    expect(ran.sort()).toEqual(['default', 'mail']);
  });

  it('concurrency bounds the handlers running at once per queue', async () => {
    const h = harness({ queues: { default: { concurrency: 2 } } });
    let running = 0;
    let peak = 0;
    h.engine.handle('C.Job', async () => {
      running++;
      peak = Math.max(peak, running);
      await sleep(10);
      running--;
    });
    await h.engine.start();
    const ids = await Promise.all(Array.from({ length: 8 }, () => h.engine.dispatch('C.Job', {})));
    await waitFor(async () => (await h.statuses(ids)).every((s) => s === 'Completed'));
    expect(peak).toBe(2);
  });

  it('delayMs and runAt: Pending until due, then Queued → InProgress → Completed; scheduled_at stored', async () => {
    // An engine clock that moves only when the test moves it: both rows are still Pending when looked at.
    let now = Date.parse('2026-06-01T12:00:00.000Z');
    const t0 = now;
    const h = harness({ clock: () => now });
    h.engine.handle('D.Job', () => undefined);
    await h.engine.start();
    const delayed = await h.engine.dispatch('D.Job', {}, { delayMs: 120 });
    const at = await h.engine.dispatch('D.Job', {}, { runAt: new Date(t0 + 60) });
    expect((await h.status(delayed))).toBe('Pending');
    expect((await h.status(at))).toBe('Pending');
    expect((await h.row(delayed))['scheduled_at']).toBe(t0 + 120);
    expect((await h.row(at))['scheduled_at']).toBe(t0 + 60);
    now = t0 + 60;
    await waitFor(async () => (await h.status(at)) === 'Completed');
    expect((await h.status(delayed))).toBe('Pending');
    now = t0 + 120;
    await waitFor(async () => (await h.status(delayed)) === 'Completed');
    expect((await h.audits(delayed))).toEqual(['Pending', 'Queued', 'InProgress', 'Completed']);
    expect((await h.row(delayed))['started_at']).toBe(t0 + 120);
  });

  it('a rate-limited type: over-budget Queued rows stay Queued with throttled_until, then run', async () => {
    // The engine clock stands still until the test moves it: the window cannot pass while the
    // test is still looking at the throttled rows, however slow the machine.
    let now = Date.parse('2026-06-01T12:00:00.000Z');
    const t0 = now;
    const h = harness({ clock: () => now });
    const starts: number[] = [];
    h.engine.handle('R.Job', () => void starts.push(now), { rateLimit: { limit: 2, windowMs: 300 } });
    const ids = await Promise.all(Array.from({ length: 4 }, () => h.engine.dispatch('R.Job', {})));
    await h.engine.start();
    await waitFor(async () => {
      const s = await h.statuses(ids);
      const throttledRows = await Promise.all(ids.map(async (id) => (await h.row(id))['throttled_until']));
      return s.filter((x) => x === 'Completed').length === 2 && throttledRows.filter((t) => t !== null).length === 2;
    });
    const statusesNow = await h.statuses(ids);
    const throttled = ids.filter((_, i) => statusesNow[i] === 'Queued');
    expect(throttled).toHaveLength(2);
    for (const id of throttled) expect((await h.row(id))['throttled_until']).toBe(t0 + 300);
    now = t0 + 300;
    await waitFor(async () => (await h.statuses(ids)).every((s) => s === 'Completed'), 5000);
    for (const id of ids) expect((await h.row(id))['throttled_until']).toBeNull();
    expect(starts).toEqual([t0, t0, t0 + 300, t0 + 300]);
    // The window counts starts as the store records them (the InProgress instants): the third is
    // a whole window after the first.
    const startedAt = await h.probe.values<number>(`SELECT updated_at FROM status_audit WHERE new_status = 'InProgress' ORDER BY updated_at`);
    expect(startedAt).toEqual([t0, t0, t0 + 300, t0 + 300]);
    // Throttling is not a transition: no extra audit rows.
    expect((await h.audits(throttled[0]!))).toEqual(['Queued', 'InProgress', 'Completed']);
  });

  it('rate limits apply per rateLimitKey when given', async () => {
    const h = harness();
    h.engine.handle('K.Job', () => undefined, { rateLimit: { limit: 1, windowMs: 10_000 } });
    await h.engine.start();
    const a = await h.engine.dispatch('K.Job', {}, { rateLimitKey: 'tenant-a' });
    const b = await h.engine.dispatch('K.Job', {}, { rateLimitKey: 'tenant-b' });
    const a2 = await h.engine.dispatch('K.Job', {}, { rateLimitKey: 'tenant-a' });
    await waitFor(async () => (await h.status(a)) === 'Completed' && (await h.status(b)) === 'Completed');
    // The claim that passed a2 over wrote its throttle: it waits for tenant-a's window only.
    await waitFor(async () => (await h.row(a2))['throttled_until'] !== null);
    expect((await h.status(a2))).toBe('Queued');
    expect((await h.row(a2))['throttled_until']).toBeGreaterThan(Date.now() + 5_000);
  });
});

describe('rows of types this engine does not handle', () => {
  it('stay Queued for another engine and do not block handled rows behind them', async () => {
    const h = harness();
    h.engine.handle('Mine.Job', () => undefined);
    (await h.probe.run(`INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at)
      VALUES ('foreign-1', 'Theirs.Job', 'Theirs.JobHandler', '{}', 'default', 'Queued', 'Full', 1)`));
    await h.engine.start();
    const ids = await Promise.all([1, 2, 3, 4, 5, 6].map(() => h.engine.dispatch('Mine.Job', {})));
    await waitFor(async () => (await h.statuses(ids)).every((s) => s === 'Completed'));
    expect((await h.status('foreign-1'))).toBe('Queued');
  });
});
