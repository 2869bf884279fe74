import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EngineInternals } from '../../../server/src/index.js';
import { closeAll, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

const captured: { internals?: EngineInternals } = {};
vi.mock('../../../server/src/engine/schedules/index.js', () => ({
  createScheduleManager: (internals: EngineInternals) => {
    captured.internals = internals;
    const none = async () => ({ status: 'NotSupported' as const, message: 'test double' });
    return { upsert: async () => 'x', cancel: none, resume: none, requeue: none };
  },
}));

afterEach(async () => {
  vi.useRealTimers();
  await closeAll();
});

describe('EngineInternals seam (used by the durable schedules)', () => {
  it('lends the store, clock, queues, handler names; tickers run at start and on their interval; wake promotes rows written directly', async () => {
    // Intervals are faked (the tickers' and the engine's own), so that ticks happen exactly when the
    // test advances time; timeouts and immediates stay real for the store and the commits.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const h = harness({ queues: { reports: { concurrency: 1 } }, auditLevel: 'ErrorsOnly', clock: () => 1_700_000_000_000 + (Date.now() % 1000) });
    const i = captured.internals!;
    expect(i.store).toBe(h.engine.store);
    expect(i.store.location).toBe(h.sut.location);
    expect(i.defaultAuditLevel).toBe('ErrorsOnly');
    expect(i.now()).toBeGreaterThanOrEqual(1_700_000_000_000);
    expect(i.resolveQueue('reports')).toBe('reports');
    expect(i.resolveQueue('nope')).toBe('default');
    expect(i.resolveQueue(undefined)).toBe('default');
    h.engine.handle('Sched.Occ', () => undefined);
    expect(i.handlerNameOf('Sched.Occ')).toBe('Sched.OccHandler');
    expect(i.handlerNameOf('Other')).toBeUndefined();
    expect(i.isRunning()).toBe(false);

    const ticks: number[] = [];
    i.addTicker('test', (now) => void ticks.push(now), 15);
    expect(ticks).toHaveLength(0);
    await h.engine.start();
    expect(i.isRunning()).toBe(true);
    expect(ticks).toHaveLength(1);
    vi.advanceTimersByTime(15 * 2);
    expect(ticks).toHaveLength(3);

    const emitted: string[] = [];
    h.engine.on('event', (e) => emitted.push(e.kind));
    i.emit({ kind: 'OccurrenceSkipped', taskId: 'x', eventDateUtc: new Date().toISOString(), severity: 'Warning', taskType: 'T', message: 'm' });
    expect(emitted).toEqual(['OccurrenceSkipped']);

    // A part writes a due Pending row directly and wakes the engine.
    (await h.probe.run(`INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at, scheduled_at)
      VALUES ('occ-1', 'Sched.Occ', 'Sched.OccHandler', '{}', 'reports', 'Pending', 'Full', 1, 1)`));
    i.wake();
    await waitFor(async () => (await h.status('occ-1')) === 'Completed');
    // A durable schedule row (occurrence_mode Durable, no parent) is never run even when due.
    (await h.probe.run(`INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at, scheduled_at, occurrence_mode, is_recurring)
      VALUES ('sched-1', 'Sched.Occ', 'Sched.OccHandler', '{}', 'default', 'Pending', 'Full', 1, 1, 'Durable', 1)`));
    // A due occurrence scheduled after it: the look that runs that one passed over the schedule row.
    (await h.probe.run(`INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at, scheduled_at)
      VALUES ('occ-2', 'Sched.Occ', 'Sched.OccHandler', '{}', 'default', 'Pending', 'Full', 1, 2)`));
    i.wake();
    await waitFor(async () => (await h.status('occ-2')) === 'Completed');
    expect((await h.status('sched-1'))).toBe('Pending');
    expect((await h.audits('sched-1'))).toEqual([]);
    // Stopped: no interval of the engine is left, so no tick can come. (The store is closed too: a
    // PostgreSQL store keeps its heartbeat and read-model roll-up until then.)
    const n = ticks.length;
    await h.engine.stop();
    await h.sut.close();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(15 * 10);
    expect(ticks).toHaveLength(n);
  });
});
