import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvcEvent } from '../../../server/src/contracts/index.js';
import { createEngine } from '../../../server/src/engine/Engine.js';
import type { Engine } from '../../../server/src/engine/types.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { waitFor } from '../../fixtures/waitFor.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { snapshotReadModels } from '../../fixtures/server/postgresReadModelSnapshot.js';
import { startsOf } from '../../fixtures/server/runTokens.js';

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
    // Listened to from the start: the 4 s run may end while the second instance is still starting.
    const completed: SvcEvent[] = [];
    behind.engine.on('event', (e) => e.kind === 'Completed' && completed.push(e));
    // The instance whose clock is behind runs the task; the other, 20 s ahead, then joins.
    await behind.engine.start();
    const id = await behind.engine.dispatch('Lease.Slow');
    await waitFor(() => starts.length === 1, 10_000, 'the run started');
    await ahead.engine.start();
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

describe('lease recovery counts abandoned runs; read models equal a recomputation', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  beforeAll(async () => {
    database = await createTestDatabase('svc_lease_rm');
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 6, rollupIntervalMs: 100_000 });
  });
  afterAll(async () => {
    await storage?.close();
    await database?.drop();
  });

  it('a dead instance\'s runs: Queued again with abandoned_count 1, or Failed (with its Failed event) past maxAbandoned', async () => {
    const survivor = createPostgresEngineStore(storage, { leaseMs: 1000 });
    const engine = createEngine({ store: survivor, maxAbandoned: 1, pollIntervalMs: 50, onError: () => undefined });
    const events: SvcEvent[] = [];
    engine.on('event', (e) => events.push(e));
    engine.handle('Lease.Other', () => undefined);
    await engine.start();
    try {
      // Another instance claims four rows of a type only it handles, then dies (its instance row gone).
      const dead = createPostgresEngineStore(storage, { leaseMs: 1000 });
      const ids: string[] = [0, 1, 2, 3].map(() => randomUUID());
      const insertTasks = ids.map((id, i) => ({
        id, type: 'Lease.Work', handler: 'Lease.WorkHandler', request: JSON.stringify({ i }), queue: 'default', taskKey: null, auditLevel: 'Full' as const,
        createdAt: Date.now(), scheduledAt: null, dueAt: 0, retryPolicy: null, timeoutMs: null, rateLimitKey: null, isRecurring: false, recurrence: null,
      }));
      const empty = { logs: [], cancels: [], attemptFailures: [], completeRuns: [], serviceStopped: [], capacities: new Map<string, number>() };
      await dead.commit({ ...empty, now: Date.now(), insertTasks, dispatching: null });
      const claim = await dead.commit({
        ...empty, now: Date.now(), insertTasks: [], dispatching: { promoteLimit: 0, claims: [{ queue: 'default', limit: 10 }], reservationMs: 1000, types: ['Lease.Work'], decide: null },
      });
      expect(claim.claimed.map((r) => r.id).sort()).toEqual([...ids].sort());
      // Two of them were abandoned once before, one an inline recurring row.
      await storage.query(`UPDATE tasks SET abandoned_count = 1, is_recurring = 1, recurrence = '{"everyMs":60000}' WHERE id = $1`, [ids[0]]);
      await storage.query('UPDATE tasks SET abandoned_count = 1 WHERE id = $1', [ids[3]]);
      // Their handlers begin: the rows are InProgress under the instance that is about to die.
      const started = await dead.commit({ ...empty, now: Date.now(), insertTasks: [], startRuns: startsOf(claim.claimed, Date.now()), dispatching: null });
      expect(started.started).toEqual([true, true, true, true]);
      await dead.dispose();
      await waitFor(async () => (await task(ids[1]!)).status === 'Queued', 10_000, 'lease recovery');
      expect(await task(ids[0]!)).toEqual({ status: 'Failed', abandoned_count: 2, instance_id: null });
      expect(await task(ids[1]!)).toEqual({ status: 'Queued', abandoned_count: 1, instance_id: null });
      expect(await task(ids[2]!)).toEqual({ status: 'Queued', abandoned_count: 1, instance_id: null });
      expect(await task(ids[3]!)).toEqual({ status: 'Failed', abandoned_count: 2, instance_id: null });
      await waitFor(() => events.filter((e) => e.kind === 'Failed').length === 2, 5000, 'the Failed events');
      const failed = events.filter((e) => e.kind === 'Failed').sort((a, b) => ids.indexOf(a.taskId) - ids.indexOf(b.taskId));
      expect(failed.map((e) => e.taskId)).toEqual([ids[0], ids[3]]);
      expect(failed[0]).toMatchObject({ taskId: ids[0], taskType: 'Lease.Work', executionTimeMs: 0 });
      expect(failed[0]!.exception).toBe('TaskAbandonedError: The task was abandoned 2 times while running (its process died or lost its lease)');
      const audits = await storage.query<{ new_status: string }>('SELECT new_status FROM status_audit WHERE task_id = $1 ORDER BY id', [ids[0]]);
      expect(audits.rows.map((r) => r.new_status)).toEqual(['Queued', 'InProgress', 'Failed']);
      const runs = await storage.query<{ status: string; execution_time_ms: number; exception: string }>(
        'SELECT status, execution_time_ms, exception FROM runs_audit WHERE task_id = $1', [ids[0]],
      );
      expect(runs.rows).toEqual([{ status: 'Failed', execution_time_ms: 0, exception: failed[0]!.exception }]);
      const live = await snapshotReadModels(storage);
      expect(live.stat_runs_hour).toEqual([expect.objectContaining({ type: 'Lease.Work', f: 2, c: 0 })]);
      await storage.rebuildReadModels();
      expect(await snapshotReadModels(storage)).toEqual(live);
      // A person's retry starts the count afresh.
      expect((await engine.tasks.retry(ids[3]!, 'tester')).status).toBe('Succeeded');
      expect(await task(ids[3]!)).toEqual({ status: 'Queued', abandoned_count: 0, instance_id: null });
    } finally {
      await engine.stop({ graceMs: 0 });
      await survivor.dispose();
    }
  }, 60_000);

  async function task(id: string) {
    return (await storage.query<{ status: string; abandoned_count: number; instance_id: string | null }>(
      'SELECT status, abandoned_count, instance_id FROM tasks WHERE id = $1', [id],
    )).rows[0]!;
  }
});
