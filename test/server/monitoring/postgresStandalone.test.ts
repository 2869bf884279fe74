// @backends sqlite — PostgreSQL's own: it opens its database itself, once.
import { randomUUID } from 'node:crypto';
import { HubConnectionBuilder, HttpTransportType, LogLevel, type HubConnection } from '@microsoft/signalr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvcEvent } from '../../../server/src/contracts/index.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { login, postJson, serve, type Served } from '../../fixtures/server/servedMonitoring.js';

const HOUR = 3_600_000;

/**
 * `serve --database postgres://…` without a local engine: the hub relays the events every
 * instance NOTIFYs, and requeue/resume/cancel are storage operations performed by this process.
 */
describe('standalone monitoring over PostgreSQL: live hub and management without a local engine', () => {
  let database: TestDatabase;
  let a: PostgresStorage;
  let b: PostgresStorage;
  let s: Served;
  let operate: string;
  const ids: Record<string, string> = {};

  const insert = async (row: Record<string, unknown>) => {
    const r = { id: randomUUID(), type: 'Pg.Reports.Hourly', handler: 'Pg.Reports.HourlyHandler', request: '{}', queue: 'default', status: 'Pending', audit_level: 'Full', created_at: Date.now(), ...row };
    const cols = Object.keys(r);
    await b.query(`INSERT INTO tasks (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`, Object.values(r));
    return r.id as string;
  };

  beforeAll(async () => {
    database = await createTestDatabase('svc_pgmon');
    [a, b] = await Promise.all([
      openPostgresStorage({ connectionString: database.connectionString, poolSize: 3 }),
      openPostgresStorage({ connectionString: database.connectionString, poolSize: 3 }),
    ]);
    const schedule = { is_recurring: 1, occurrence_mode: 'Durable', schedule_version: 1, time_zone_id: 'UTC' };
    ids.schedule = await insert({ ...schedule, task_key: 'pg-hourly', scheduled_at: Date.now() + HOUR });
    ids.halted = await insert({
      ...schedule, task_key: 'pg-halted', scheduled_at: Date.now() + HOUR,
      halt: JSON.stringify({ atUtc: new Date().toISOString(), reason: 'OverflowCapExceeded', detectedAtLeast: 20, isExact: true, scheduleVersion: 1 }),
    });
    const occurrence = (status: string, slot: number) =>
      insert({ status, occurrence_mode: 'Durable', parent_task_id: ids.schedule, nominal_slot_at: slot, run_number: slot, schedule_version: 1, misfire_kind: 'OnTime' });
    ids.failed = await occurrence('Failed', 1);
    ids.pending = await occurrence('Pending', 2);
    ids.running = await occurrence('InProgress', 3);
    s = await serve({ storage: a }, { enableManagementEndpoints: true, managementUsername: 'op', managementPassword: 'op', loginRateLimit: false });
    operate = await login(s.api, 'op', 'op');
  });
  afterAll(async () => {
    await s?.close();
    await a?.close();
    await b?.close();
    await database?.drop();
  });

  it('the hub delivers events published by another instance, large payloads by id, in order', async () => {
    const received: SvcEvent[] = [];
    const connection: HubConnection = new HubConnectionBuilder()
      .withUrl(`${s.baseUrl}/svc-monitoring/hub`, { transport: HttpTransportType.WebSockets, accessTokenFactory: () => operate })
      .configureLogging(LogLevel.None)
      .build();
    const gotThree = new Promise<void>((resolve) => {
      connection.on('SvcEvent', (e: SvcEvent) => {
        received.push(e);
        if (received.length === 3) resolve();
      });
    });
    await connection.start();
    await a.events.ready();
    try {
      const event = (kind: SvcEvent['kind'], extra: Partial<SvcEvent> = {}): SvcEvent => ({
        kind, taskId: randomUUID(), eventDateUtc: new Date().toISOString(), severity: kind === 'Failed' ? 'Error' : 'Information',
        taskType: 'Pg.Remote.Work', message: `${kind} elsewhere`, queueName: 'default', ...extra,
      });
      const big = 'x'.repeat(20_000);
      const sent = [event('Started'), event('Failed', { exception: `Error: huge\n${big}` }), event('Completed')];
      await b.events.publish(sent);
      await gotThree;
      expect(received.map((e) => [e.kind, e.taskId])).toEqual(sent.map((e) => [e.kind, e.taskId]));
      expect(received[1]!.exception).toHaveLength(sent[1]!.exception!.length);
    } finally {
      await connection.stop();
    }
  });

  it('requeue of a failed occurrence writes the row and its audit, and wakes every instance', async () => {
    const woke = new Promise<string>((resolve) => b.events.on('wake', resolve));
    await b.events.ready();
    const r = await postJson(`${s.api}/management/tasks/${ids.failed}/requeue`, undefined, operate);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'Succeeded', taskId: ids.failed });
    expect(await woke).toBe(a.events.id);
    const row = (await b.query(`SELECT status, attempt FROM tasks WHERE id = $1`, [ids.failed])).rows[0];
    expect(row).toEqual({ status: 'Queued', attempt: 0 });
    const audits = (await b.query(`SELECT new_status FROM status_audit WHERE task_id = $1`, [ids.failed])).rows;
    expect(audits).toEqual([{ new_status: 'Queued' }]);
    // Not terminal any more: Conflict; unknown id: NotFound.
    expect((await postJson(`${s.api}/management/tasks/${ids.failed}/requeue`, undefined, operate)).status).toBe(409);
    expect((await postJson(`${s.api}/management/tasks/${randomUUID()}/requeue`, undefined, operate)).status).toBe(404);
  });

  it('resume releases a halt; cancel cancels the schedule and its not-started occurrences, running ones finish', async () => {
    const resumed = await postJson(`${s.api}/management/tasks/${ids.halted}/resume`, undefined, operate);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'Succeeded', releasedHalt: true });
    expect((await b.query(`SELECT halt FROM tasks WHERE id = $1`, [ids.halted])).rows[0]).toEqual({ halt: null });
    const again = await postJson(`${s.api}/management/tasks/${ids.halted}/resume`, undefined, operate);
    expect(again.body).toMatchObject({ status: 'Succeeded', releasedHalt: false });

    const cancelled = await postJson(`${s.api}/management/tasks/${ids.schedule}/cancel`, undefined, operate);
    expect(cancelled.status).toBe(200);
    const statuses = (await b.query<{ id: string; status: string }>(`SELECT id, status FROM tasks WHERE id = ANY($1::text[])`, [[ids.schedule, ids.pending, ids.running, ids.failed]])).rows;
    expect(Object.fromEntries(statuses.map((r) => [r.id, r.status]))).toEqual({
      [ids.schedule!]: 'Cancelled', [ids.pending!]: 'Cancelled', [ids.running!]: 'InProgress', [ids.failed!]: 'Cancelled',
    });
    expect((await postJson(`${s.api}/management/tasks/${ids.schedule}/cancel`, undefined, operate)).status).toBe(409);
    expect((await postJson(`${s.api}/management/tasks/${ids.pending}/cancel`, undefined, operate)).status).toBe(409);
  });
});
