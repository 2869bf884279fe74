// @backends postgres — a connection terminated by the server (pg_terminate_backend) mid-write exists only on PostgreSQL
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../../server/src/index.js';
import { PG_ADMIN_URL } from '../../fixtures/server/postgresDatabase.js';
import { openMonitoredStore, type MonitoredStore } from '../../fixtures/server/monitoredStore.js';
import { login, postJson, serve, type Served } from '../../fixtures/server/servedMonitoring.js';
import { waitFor } from '../../fixtures/waitFor.js';

// A management write whose PostgreSQL connection is terminated while it waits (here: on a row
// lock another session holds) answers 503 like any store that cannot be reached, never 500; the
// next request, on a new connection, succeeds.

describe('a management write that loses its PostgreSQL connection', () => {
  let t: MonitoredStore;
  let s: Served;
  let engine: Engine;
  let operate: string;
  let admin: pg.Client;
  let database: string;

  beforeAll(async () => {
    t = openMonitoredStore();
    engine = t.engine({ queues: { default: { concurrency: 1 } } });
    engine.handle('Lost.Schedule', async () => {});
    await engine.start();
    s = await serve(await t.source(engine), { enableManagementEndpoints: true, managementUsername: 'operator', managementPassword: 'operator', loginRateLimit: false });
    operate = await login(s.api, 'operator', 'operator');
    admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    database = /^postgres:\/\/[^/]+\/([^ ]+)/.exec(t.store.location)![1]!;
  });
  afterAll(async () => {
    await admin?.end();
    await s?.close();
    await engine?.stop({ graceMs: 0 });
    await t?.destroy();
  });

  /**
   * Runs `request` while another session holds the row `id` locked (or, with `table`, the whole
   * task table, so that even reads wait); the backends waiting on it are terminated.
   */
  async function terminatedWhileWaiting(id: string, request: () => Promise<{ status: number; body: unknown; headers: Headers }>, table = false) {
    const schema = /\(schema ([^)]+)\)/.exec(t.store.location)![1]!;
    const holder = new pg.Client({ connectionString: PG_ADMIN_URL.replace(/\/[^/]*$/, `/${database}`) });
    await holder.connect();
    try {
      const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await holder.query('BEGIN');
      if (table) await holder.query(`LOCK TABLE "${schema}".tasks IN ACCESS EXCLUSIVE MODE`);
      else await holder.query(`SELECT 1 FROM "${schema}".tasks WHERE id = $1 FOR UPDATE`, [id]);
      const answer = request();
      const waiting = await waitFor(async () => {
        const { rows } = await admin.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND pid <> $2`, [database, holderPid]);
        return rows.length > 0 ? rows.map((r) => r.pid) : undefined;
      }, 10_000, 'the write to wait on the lock', 10);
      for (const pid of waiting) await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      return await answer;
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  }

  it('schedule cancel: 503 (nothing cancelled), then 200 once a connection is back', async () => {
    const id = await engine.schedules.upsert({ key: 'lost-cancel', type: 'Lost.Schedule', every: '1h' });
    const r = await terminatedWhileWaiting(id, () => postJson(`${s.api}/management/tasks/${id}/cancel`, undefined, operate));
    expect(r.status).toBe(503);
    expect(await t.probe.value(`SELECT status FROM tasks WHERE id = ?`, id)).not.toBe('Cancelled');
    const again = await postJson(`${s.api}/management/tasks/${id}/cancel`, undefined, operate);
    expect(again.status).toBe(200);
  }, 30_000);

  it('schedule cancel whose first read loses its connection: 503 problem details, not 500; then 200', async () => {
    const id = await engine.schedules.upsert({ key: 'lost-read', type: 'Lost.Schedule', every: '1h' });
    const r = await terminatedWhileWaiting(id, () => postJson(`${s.api}/management/tasks/${id}/cancel`, undefined, operate), true);
    expect(r.status).toBe(503);
    expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(r.body).toMatchObject({ status: 503, title: 'Service Unavailable' });
    const again = await postJson(`${s.api}/management/tasks/${id}/cancel`, undefined, operate);
    expect(again.status).toBe(200);
    expect(await t.probe.value(`SELECT status FROM tasks WHERE id = ?`, id)).toBe('Cancelled');
  }, 30_000);
});
