import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkOperation } from '../../../server/src/contracts/index.js';
import { getJson, postJson } from '../../fixtures/server/servedMonitoring.js';
import { startPowerHost } from '../../fixtures/server/powerHost.js';
import { waitFor } from '../../fixtures/waitFor.js';

// A Queued row taken ahead of a free worker carries the instance that reserved it. The API shows
// the reservation while the row waits, and every cancel or requeue path drops it.

type Reservation = { reserved_by: string | null; reserved_at: number | null };

describe('reserved rows in the API; cancels and requeues clear the reservation (real engine, HTTP)', () => {
  let h: Awaited<ReturnType<typeof startPowerHost>>;
  beforeAll(async () => {
    h = await startPowerHost();
  });
  afterAll(async () => h?.close());

  const reservation = (id: string) => h.probe.row<Reservation>('SELECT reserved_by, reserved_at FROM tasks WHERE id = ?', id);
  const queue = async (name: string) =>
    ((await getJson(`${h.s.api}/queues`, h.read)).body as { queueName: string }[]).find((q) => q.queueName === name) as Record<string, unknown> | undefined;
  const overviewQueue = async (name: string) =>
    ((await getJson(`${h.s.api}/dashboard/overview?range=All`, h.read)).body.queueSummaries as { queueName: string }[]).find((q) => q.queueName === name) as
      | Record<string, unknown>
      | undefined;
  const finishedBulk = async (action: string, body: unknown) => {
    const r = await postJson(`${h.s.api}/management/bulk/${action}`, body, h.operate);
    expect(r.status).toBe(200);
    return waitFor(async () => {
      const s = await getJson(`${h.s.api}/management/bulk/${r.body.operationId as string}`, h.operate);
      return s.body.state === 'Running' ? undefined : (s.body as BulkOperation);
    }, 15_000, 'the bulk operation to finish', 25);
  };

  it('a reserved Queued row shows reservedBy and reservedAtUtc in its detail and the task list; the queue metrics and the overview count it in reservedCount', async () => {
    const at = Date.now() - 120;
    const [reserved, waiting] = await h.insertMany([
      { type: 'Power.Reserved', queue: 'reservedq', status: 'Queued', reserved_by: 'engine-elsewhere', reserved_at: at },
      { type: 'Power.Reserved', queue: 'reservedq', status: 'Queued' },
    ]);
    const detail = await getJson(`${h.s.api}/tasks/${reserved!}`, h.read);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ status: 'Queued', reservedBy: 'engine-elsewhere', reservedAtUtc: new Date(at).toISOString() });
    expect(detail.body.startedAtUtc).toBeUndefined();
    const list = await getJson(`${h.s.api}/queues/reservedq/tasks?pageSize=10`, h.read);
    expect(list.status).toBe(200);
    const items = new Map((list.body.items as { id: string }[]).map((i) => [i.id, i]));
    expect(items.get(reserved!)).toMatchObject({ reservedBy: 'engine-elsewhere', reservedAtUtc: new Date(at).toISOString() });
    expect(items.get(waiting!)).not.toHaveProperty('reservedBy');
    const plain = await getJson(`${h.s.api}/tasks/${waiting!}`, h.read);
    expect(plain.body).not.toHaveProperty('reservedBy');
    expect(plain.body).not.toHaveProperty('reservedAtUtc');
    expect(await queue('reservedq')).toMatchObject({ queuedTasks: 2, inProgressTasks: 0, reservedCount: 1 });
    expect(await overviewQueue('reservedq')).toMatchObject({ pendingCount: 2, inProgressCount: 0, reservedCount: 1 });
    // A started run keeps reserved_at (its rate-window instant) but is no reservation any more.
    await h.probe.run(`UPDATE tasks SET status = 'InProgress', reserved_by = NULL, started_at = ? WHERE id = ?`, Date.now(), reserved!);
    const started = await getJson(`${h.s.api}/tasks/${reserved!}`, h.read);
    expect(started.body).not.toHaveProperty('reservedBy');
  });

  it('bulk cancel and bulk retry clear reserved_by and reserved_at', async () => {
    const ids = await h.insertMany(
      Array.from({ length: 3 }, () => ({ type: 'Power.CancelReserved', queue: 'cancelq', status: 'Queued', reserved_by: 'engine-elsewhere', reserved_at: Date.now() })),
    );
    expect(await queue('cancelq')).toMatchObject({ reservedCount: 3 });
    expect(await finishedBulk('cancel', { filter: { taskType: 'Power.CancelReserved' }, expectedCount: 3 })).toMatchObject({ state: 'Completed', succeeded: 3 });
    expect(await h.statuses(ids)).toEqual(['Cancelled', 'Cancelled', 'Cancelled']);
    for (const id of ids) {
      expect(await reservation(id)).toEqual({ reserved_by: null, reserved_at: null });
      expect((await getJson(`${h.s.api}/tasks/${id}`, h.read)).body).not.toHaveProperty('reservedBy');
    }
    // A Failed row that still carries a reservation (one a cancel left before this change) is retried without it.
    const kept = await h.insert({ type: 'Power.RequeueReserved', queue: 'requeueq', status: 'Failed', reserved_by: 'engine-elsewhere', reserved_at: Date.now() });
    expect(await finishedBulk('retry', { filter: { taskType: 'Power.RequeueReserved' }, expectedCount: 1 })).toMatchObject({ state: 'Completed', succeeded: 1 });
    expect(await h.statuses([kept])).toEqual(['Queued']);
    expect(await reservation(kept)).toEqual({ reserved_by: null, reserved_at: null });
    expect(await queue('requeueq')).toMatchObject({ queuedTasks: 1, reservedCount: 0 });
  });

  it('cancelling a schedule clears the reservation of its Queued occurrences', async () => {
    const { scheduleId, ids } = await h.schedule(2, 'Queued');
    await h.probe.run(`UPDATE tasks SET reserved_by = 'engine-elsewhere', reserved_at = ? WHERE parent_task_id = ?`, Date.now(), scheduleId);
    const r = await postJson(`${h.s.api}/management/tasks/${scheduleId}/cancel`, undefined, h.operate);
    expect(r.status).toBe(200);
    expect(await h.statuses(ids)).toEqual(['Cancelled', 'Cancelled']);
    for (const id of ids) expect(await reservation(id)).toEqual({ reserved_by: null, reserved_at: null });
  });
});
