import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../fixtures/waitFor.js';
import type { Engine } from '../../../server/src/index.js';
import { getJson, insertTask, login, postJson, serve, type Served } from '../../fixtures/server/servedMonitoring.js';
import { openMonitoredStore, type MonitoredStore } from '../../fixtures/server/monitoredStore.js';

const HOUR = 3_600_000;

describe('management endpoints on the full registration (real engine and schedules)', () => {
  let t: MonitoredStore;
  let s: Served;
  let engine: Engine;
  let operate: string;
  let read: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = openMonitoredStore();
    engine = t.engine({ queues: { default: { concurrency: 2 } } });
    engine.handle('Mgmt.Reports.Broken', async () => {
      throw new Error('report source unavailable');
    });
    engine.handle('Mgmt.Reports.Fine', async () => {});
    // Schedules created before start with a simulated downtime: the materializer cursor is moved
    // back to the definition's start, so the first planning pass finds the missed slots.
    const now = Date.now();
    const down = async (key: string, type: string, every: string, downMs: number, overflowCap: number) => {
      const id = await engine.schedules.upsert({ key, type, every, startAt: new Date(now - downMs), misfire: { policy: 'ReplayAll', overflowCap } });
      await t.probe.run(`UPDATE tasks SET cursor_at = ?, scheduled_at = ? WHERE id = ?`, now - downMs - 1, now - downMs, id);
      return id;
    };
    ids.broken = await down('mgmt-broken', 'Mgmt.Reports.Broken', '1h', 2.5 * HOUR, 100);
    ids.halted = await down('mgmt-halted', 'Mgmt.Reports.Fine', '1m', 5 * HOUR, 10);
    ids.unavailable = await down('mgmt-unavailable', 'Mgmt.Reports.Fine', '1m', 5 * HOUR, 5);
    await engine.start();
    s = await serve(await t.source(engine), { enableManagementEndpoints: true, managementUsername: 'operator', managementPassword: 'operator', loginRateLimit: false });
    operate = await login(s.api, 'operator', 'operator');
    read = await login(s.api);
  });
  afterAll(async () => {
    await s?.close();
    await engine?.stop({ graceMs: 500 });
    await t?.destroy();
  });

  const row = (id: string) => t.probe.row<{ status: string; halt: string | null; task_key: string | null }>(`SELECT status, halt, task_key FROM tasks WHERE id = ?`, id);
  const post = (id: string, action: string, token = operate) => postJson(`${s.api}/management/tasks/${id}/${action}`, undefined, token);

  it('requeue: Failed occurrence → 200 Succeeded (same id, audit kept); schedule row → 409; unknown → 404; read role changes nothing', async () => {
    const scheduleId = ids.broken!;
    const failed = await waitFor(
      () => t.probe.value<string | undefined>(`SELECT id FROM tasks WHERE parent_task_id = ? AND status = 'Failed' LIMIT 1`, scheduleId),
      15_000,
      'a failed occurrence',
      50,
    );
    const refused = await post(failed, 'requeue', read);
    expect(refused.status).toBe(403);
    expect((await row(failed))!.status).toBe('Failed');
    const auditsBefore = (await getJson(`${s.api}/tasks/${failed}/status-audit`, read)).body.totalCount as number;
    const ok = await post(failed, 'requeue');
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'Succeeded', taskId: failed });
    // The requeue's own entry: the first one after the audits seen before it is 'Queued' (the
    // re-run that follows at once adds InProgress and its outcome after it).
    const after = await getJson(`${s.api}/tasks/${failed}/status-audit?take=500`, read);
    const oldestFirst = [...(after.body.audits as { newStatus: string; queuedTaskId: string }[])].reverse();
    expect(oldestFirst[auditsBefore - 1]).toMatchObject({ newStatus: 'Failed', queuedTaskId: failed });
    expect(oldestFirst[auditsBefore]).toMatchObject({ newStatus: 'Queued', queuedTaskId: failed });
    const sch = await post(scheduleId, 'requeue');
    expect(sch.status).toBe(409);
    expect(sch.body.status).toBe('Conflict');
    const unknown = await post(randomUUID(), 'requeue');
    expect(unknown.status).toBe(404);
    expect(unknown.body.status).toBe('NotFound');
  });

  it('resume: a halted schedule → 200 with releasedHalt; a row that is not a schedule or has no key → 409; unknown → 404', async () => {
    const haltedId = ids.halted!;
    await waitFor(async () => ((await row(haltedId))?.halt ? true : undefined), 15_000, 'the halt', 50);
    const detail = await getJson(`${s.api}/tasks/${haltedId}`, read);
    expect(detail.body.halt).toMatchObject({ reason: 'OverflowCapExceeded', isExact: true });
    expect((await getJson(`${s.api}/dashboard/overview`, read)).body.catchUpBacklog.haltedSchedules).toBeGreaterThanOrEqual(1);
    const r = await post(haltedId, 'resume');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'Succeeded', taskId: haltedId, releasedHalt: true });
    const plain = await t.seed((db) => insertTask(db, { status: 'Completed' }));
    expect((await post(plain, 'resume')).status).toBe(409);
    const keyless = await t.seed((db) =>
      insertTask(db, { status: 'Pending', is_recurring: 1, occurrence_mode: 'Durable', schedule_version: 1, misfire_policy: 'ReplayAll' }),
    );
    const k = await post(keyless, 'resume');
    expect(k.status).toBe(409);
    expect(k.body.message).toMatch(/task key/);
    expect((await post(randomUUID(), 'resume')).status).toBe(404);
  });

  it('cancel: 200 then the schedule is Cancelled; its occurrences cannot be requeued (409)', async () => {
    const id = await engine.schedules.upsert({ key: 'mgmt-cancel', type: 'Mgmt.Reports.Fine', every: '1h' });
    const r = await post(id, 'cancel');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'Succeeded', taskId: id });
    expect((await row(id))!.status).toBe('Cancelled');
    const again = await post(id, 'cancel');
    expect([409, 200]).toContain(again.status);
  });

  it('Unavailable: a schedule whose definition cannot be evaluated → 503, nothing written', async () => {
    const id = ids.unavailable!;
    await waitFor(async () => ((await row(id))?.halt ? true : undefined), 15_000, 'the halt', 50);
    const definition = t.backend === 'postgres'
      ? `(schedule_definition::jsonb || '{"timeZone": "Mars/Olympus_Mons"}')::text`
      : `json_set(schedule_definition, '$.timeZone', 'Mars/Olympus_Mons')`;
    await t.probe.run(`UPDATE tasks SET time_zone_id = 'Mars/Olympus_Mons', schedule_definition = ${definition} WHERE id = ?`, id);
    const before = (await row(id))!;
    const r = await post(id, 'resume');
    expect(r.status).toBe(503);
    expect(r.body.status).toBe('Unavailable');
    expect(await row(id)).toEqual(before);
  });

  it('full registration wires the hub: negotiate needs the JWT (401 without, 200 with) and an allowed address', async () => {
    const url = `${s.baseUrl}/svc-monitoring/hub/negotiate?negotiateVersion=1`;
    expect((await fetch(url, { method: 'POST' })).status).toBe(401);
    const ok = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${read}` } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { connectionToken?: string }).connectionToken).toEqual(expect.any(String));
  });
});
