import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createEngine } from '../../../server/src/engine/Engine.js';
import type { Engine } from '../../../server/src/engine/types.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { waitFor } from '../../fixtures/waitFor.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';

interface Run {
  task: string;
  begin: number;
  end?: number;
}

/**
 * An instance's rows are another instance's to recover while it has no live heartbeat row: before
 * its first heartbeat of this life is written (its start's heartbeat failed: a connection ended
 * under it, as the chaos suite's pg_terminate_backend does), it claims and begins nothing.
 */
describe('an instance claims nothing before its first heartbeat is written', () => {
  let database: TestDatabase;
  let admin: pg.Client;
  const storages: PostgresStorage[] = [];
  const stores: PostgresEngineStore[] = [];
  const engines: Engine[] = [];
  beforeAll(async () => {
    database = await createTestDatabase('svc_first_heartbeat');
    admin = new pg.Client({ connectionString: database.connectionString, options: '-c search_path=svc_monitor' });
    await admin.connect();
  });
  afterAll(async () => {
    for (const e of engines) await e.stop({ graceMs: 0 }).catch(() => undefined);
    for (const s of stores) await s.dispose().catch(() => undefined);
    for (const s of storages) await s.close().catch(() => undefined);
    await admin?.end();
    await database?.drop();
  });
  const instance = async () => {
    const storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 3 });
    const store = createPostgresEngineStore(storage, { leaseMs: 1000 });
    storages.push(storage);
    stores.push(store);
    return { storage, store };
  };

  it('its start\'s heartbeat refused: no handler begins until one is written, then the task runs once and counts no abandoned run', async () => {
    const a = await instance();
    // Another live instance, whose lease recovery (its own timer, every third of the lease) takes
    // rows whose instance has no live heartbeat row.
    await instance();
    // The database refuses A's heartbeats until told otherwise (the migrations made the schema when A opened).
    await admin.query(`CREATE TABLE refused_heartbeats (id text PRIMARY KEY)`);
    await admin.query(`CREATE FUNCTION refuse_heartbeat() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM refused_heartbeats WHERE id = NEW.id) THEN RAISE EXCEPTION 'heartbeat refused by the test'; END IF;
        RETURN NEW;
      END $$`);
    await admin.query(`CREATE TRIGGER refuse_heartbeat BEFORE INSERT OR UPDATE ON engine_instances FOR EACH ROW EXECUTE FUNCTION refuse_heartbeat()`);
    await admin.query(`INSERT INTO refused_heartbeats (id) VALUES ($1)`, [a.store.instanceId]);

    const runs: Run[] = [];
    const heard: string[] = [];
    const engine = createEngine({ store: a.store, pollIntervalMs: 20, onError: (_err, where) => heard.push(where) });
    engines.push(engine);
    engine.handle('First.Slow', async (_req, ctx) => {
      const run: Run = { task: ctx.taskId, begin: performance.now() };
      runs.push(run);
      await new Promise((r) => setTimeout(r, 1500));
      run.end = performance.now();
    });
    await engine.start();
    expect(heard).toContain('recovery');
    const id = await engine.dispatch('First.Slow', {});
    // Longer than the lease: the other instance's recovery looks several times meanwhile.
    await new Promise((r) => setTimeout(r, 1500));
    expect(runs).toEqual([]);

    await admin.query(`DELETE FROM refused_heartbeats`);
    await waitFor(async () => (await admin.query<{ status: string }>('SELECT status FROM tasks WHERE id = $1', [id])).rows[0]!.status === 'Completed', 10_000, 'the task completed');
    // Long enough for a second run begun beside the first to show.
    await new Promise((r) => setTimeout(r, 500));
    expect(runs.map((r) => r.task)).toEqual([id]);
    const { rows } = await admin.query<{ abandoned_count: number; run_count: number }>('SELECT abandoned_count, run_count FROM tasks WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ abandoned_count: 0, run_count: 1 });
  }, 60_000);
});
