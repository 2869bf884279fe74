import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvcEvent } from '../../../server/src/contracts/index.js';
import { createEngine } from '../../../server/src/engine/Engine.js';
import type { Engine } from '../../../server/src/engine/types.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/engine/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { waitFor } from '../engine/helpers.js';
import { createTestDatabase, type TestDatabase } from '../support/postgresDatabase.js';

/** Engine instances in this process on one PostgreSQL database, each with its own store (instance id, heartbeat). */
describe('leases on PostgreSQL are timed by the database clock and kept honestly', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  const stores: PostgresEngineStore[] = [];
  const engines: Engine[] = [];
  beforeAll(async () => {
    database = await createTestDatabase('svc_lease');
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 8 });
  });
  afterAll(async () => {
    for (const e of engines) await e.stop({ graceMs: 0 }).catch(() => undefined);
    for (const s of stores) await s.dispose();
    await storage?.close();
    await database?.drop();
  });
  const instance = (clock: () => number, leaseMs: number) => {
    const store = createPostgresEngineStore(storage, { leaseMs, clock });
    const engine = createEngine({ store, clock, pollIntervalMs: 50, onError: () => undefined });
    stores.push(store);
    engines.push(engine);
    return { store, engine };
  };
  const task = async (id: string) =>
    (await storage.query<{ status: string; abandoned_count: number; instance_id: string | null }>(
      'SELECT status, abandoned_count, instance_id FROM tasks WHERE id = $1', [id],
    )).rows[0]!;

  it('two instances whose host clocks are 20 s apart do not recover each other\'s live runs', async () => {
    const behind = instance(() => Date.now() - 20_000, 1000);
    const ahead = instance(Date.now, 1000);
    const starts: string[] = [];
    const slow = (who: string) => async () => {
      starts.push(who);
      await new Promise((r) => setTimeout(r, 4000));
    };
    behind.engine.handle('Lease.Slow', slow('behind'));
    ahead.engine.handle('Lease.Slow', slow('ahead'));
    // The instance whose clock is behind runs the task; the other, 20 s ahead, then joins.
    await behind.engine.start();
    const id = await behind.engine.dispatch('Lease.Slow');
    await waitFor(() => starts.length === 1, 10_000, 'the run started');
    await ahead.engine.start();
    const completed: SvcEvent[] = [];
    behind.engine.on('event', (e) => e.kind === 'Completed' && completed.push(e));
    await waitFor(() => completed.length === 1, 15_000, 'the run completed');
    expect(starts).toEqual(['behind']);
    expect(await task(id)).toEqual({ status: 'Completed', abandoned_count: 0, instance_id: null });
    const audits = await storage.query<{ new_status: string }>('SELECT new_status FROM status_audit WHERE task_id = $1 ORDER BY id', [id]);
    expect(audits.rows.map((r) => r.new_status)).toEqual(['Queued', 'InProgress', 'Completed']);
  }, 60_000);

  it('a heartbeat that cannot be written: health degraded; past the lease no new run starts until one is written', async () => {
    const { store, engine } = instance(Date.now, 600);
    const ran: string[] = [];
    engine.handle('Lease.Quick', (_r, ctx) => {
      ran.push(ctx.taskId);
    });
    await engine.start();
    expect(engine.health().status).toBe('ok');
    await storage.query('ALTER TABLE engine_instances RENAME TO engine_instances_away');
    try {
      await waitFor(() => engine.health().status === 'degraded', 10_000, 'health degraded');
      expect(engine.health().reason).toMatch(/^The heartbeat cannot be written/);
      await waitFor(() => store.lease().expired, 10_000, 'the lease lapsed');
      expect(engine.health().reason).toContain('no new runs start');
      const id = await engine.dispatch('Lease.Quick');
      await new Promise((r) => setTimeout(r, 1500));
      expect(ran).toEqual([]);
      expect((await task(id)).status).toBe('Queued');
      await storage.query('ALTER TABLE engine_instances_away RENAME TO engine_instances');
      await waitFor(() => ran.length === 1, 10_000, 'the run after a heartbeat was written');
      expect(ran).toEqual([id]);
      await waitFor(async () => (await task(id)).status === 'Completed', 10_000, 'Completed');
      expect(engine.health().status).toBe('ok');
    } finally {
      await storage.query('ALTER TABLE IF EXISTS engine_instances_away RENAME TO engine_instances');
    }
  }, 60_000);
});
