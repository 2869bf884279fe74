import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createEngine } from '../../../server/src/engine/Engine.js';
import type { Engine } from '../../../server/src/engine/types.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { waitFor } from '../../fixtures/waitFor.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { deferred } from '../../fixtures/server/engineHarness.js';
import type { EngineStore } from '../../../server/src/storage/EngineStore.js';

/** One handler run as the handler saw it: which instance, when (performance.now), its ctx.attempt. */
interface Run {
  who: string;
  task: string;
  attempt: number;
  begin: number;
  end?: number;
}

/** Pairs of runs of one task that overlapped in time. */
const overlaps = (runs: readonly Run[]): [Run, Run][] => {
  const out: [Run, Run][] = [];
  for (const a of runs) {
    for (const b of runs) {
      if (a !== b && a.task === b.task && a.begin <= b.begin && b.begin < (a.end ?? Infinity)) out.push([a, b]);
    }
  }
  return out;
};

/** A handler whose first attempt fails after `failMs`; later ones take `okMs`. Every run is recorded. */
const flaky = (who: string, runs: Run[], failMs: number, okMs: number) => async (_req: unknown, ctx: { taskId: string; attempt: number }) => {
  const run: Run = { who, task: ctx.taskId, attempt: ctx.attempt, begin: performance.now() };
  runs.push(run);
  await new Promise((r) => setTimeout(r, ctx.attempt === 1 ? failMs : okMs));
  run.end = performance.now();
  if (ctx.attempt === 1) throw new Error('first attempt refused');
};

describe('an instance whose lease lapsed knows it, and no live instance\'s rows are taken', () => {
  let database: TestDatabase;
  const storages: PostgresStorage[] = [];
  const stores: PostgresEngineStore[] = [];
  const engines: Engine[] = [];
  /** Outside the engines' pools, with its own application name: what the tests read and terminate with. */
  let admin: pg.Client;
  beforeAll(async () => {
    database = await createTestDatabase('svc_lease_lapse_pg_lease');
    admin = new pg.Client({ connectionString: database.connectionString, application_name: 'lease-lapse-test', options: '-c search_path=svc_monitor' });
    await admin.connect();
  });
  afterAll(async () => {
    for (const e of engines) await e.stop({ graceMs: 0 }).catch(() => undefined);
    for (const s of stores) await s.dispose().catch(() => undefined);
    for (const s of storages) await s.close().catch(() => undefined);
    await admin?.end();
    await database?.drop();
  });
  const instance = async (leaseMs: number, onError: (err: unknown, where: string) => void = () => undefined) => {
    const storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 3 });
    const store = createPostgresEngineStore(storage, { leaseMs });
    const engine = createEngine({ store, pollIntervalMs: 50, onError });
    storages.push(storage);
    stores.push(store);
    engines.push(engine);
    return { storage, store, engine };
  };
  const row = async (id: string) =>
    (await admin.query<{ status: string; abandoned_count: number }>('SELECT status, abandoned_count FROM tasks WHERE id = $1', [id])).rows[0]!;

  it('a lapse while a run waits for its retry: the lapsed instance drops the retry (no second run beside the one that took the row) and says so', async () => {
    const runs: Run[] = [];
    const heard: string[] = [];
    const a = await instance(1000, (_err, where) => heard.push(where));
    const b = await instance(1000);
    a.engine.handle('Lapse.Flaky', flaky('a', runs, 20, 1500), { retry: { attempts: 2, backoffMs: 1000, backoff: 'fixed' } });
    b.engine.handle('Lapse.Flaky', flaky('b', runs, 20, 1500), { retry: { attempts: 2, backoffMs: 1000, backoff: 'fixed' } });
    await a.engine.start();
    const id = await a.engine.dispatch('Lapse.Flaky');
    await waitFor(() => runs.some((r) => r.end !== undefined), 10_000, 'the first attempt failed');
    await b.engine.start();
    // A's heartbeats stop reaching the database for longer than its lease (as when its connections
    // keep being ended): B's recovery finds it expired and takes its row, which waits for its retry.
    await waitFor(async () => {
      await admin.query('UPDATE engine_instances SET heartbeat_at = heartbeat_at - 5000 WHERE id = $1', [a.store.instanceId]);
      await b.store.leaseTick();
      return (await row(id)).abandoned_count === 1;
    }, 10_000, 'the row taken from the lapsed instance');
    await waitFor(async () => (await row(id)).status === 'Completed', 15_000, 'the task completed');
    // A learnt of the lapse at its next heartbeat and began nothing more for the row it had lost.
    await new Promise((r) => setTimeout(r, 1500));
    expect(overlaps(runs)).toEqual([]);
    expect(a.store.lease().lapses).toBe(1);
    expect(heard).toContain('lease');
    // Two runs: the first attempt here, then the one that took the row (its attempt counts the abandoned run).
    expect(runs.map((r) => r.who)[0]).toBe('a');
    expect(runs).toHaveLength(2);
    expect(await row(id)).toEqual({ status: 'Completed', abandoned_count: 1 });
  }, 60_000);

  it('connections ended over and over (pg_terminate_backend) while runs retry: no run overlaps another of its task, none counts as abandoned', async () => {
    const runs: Run[] = [];
    const engineA = await instance(1500);
    const engineB = await instance(1500);
    for (const [who, e] of [['a', engineA], ['b', engineB]] as const) {
      e.engine.handle('Lapse.Retried', flaky(who, runs, 40, 60), { retry: { attempts: 2, backoffMs: 30, backoff: 'fixed' } });
    }
    await engineA.engine.start();
    await engineB.engine.start();
    const ids: string[] = [];
    const killing = { on: true, kills: 0 };
    const killer = (async () => {
      while (killing.on) {
        await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'svc-monitor' AND datname = current_database()`);
        killing.kills++;
        await new Promise((r) => setTimeout(r, 120 + Math.floor(Math.random() * 200)));
      }
    })();
    try {
      for (let i = 0; i < 30; i++) {
        for (let j = 0; j < 4; j++) ids.push(await (i % 2 === 0 ? engineA : engineB).engine.dispatch('Lapse.Retried'));
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      killing.on = false;
      await killer;
    }
    expect(killing.kills).toBeGreaterThan(15);
    await waitFor(async () => {
      const { rows } = await admin.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM tasks WHERE status = 'Completed' AND id = ANY($1::text[])`, [ids]);
      return rows[0]!.n === ids.length;
    }, 60_000, 'every task completed', 100).catch(async (e: Error) => {
      // The rows left and their runs, in the failure's message (a rare fault is read from one failure).
      const { rows: left } = await admin.query<{ id: string }>(
        `SELECT id, status, reserved_by, reserved_at, instance_id, attempt, run_token, abandoned_count, started_at, scheduled_at, throttled_until
           FROM tasks WHERE status <> 'Completed' AND id = ANY($1::text[])`, [ids]);
      const instances = (await admin.query('SELECT id, heartbeat_at FROM engine_instances')).rows;
      throw new Error(`${e.message}; at ${Date.now()} rows left ${JSON.stringify(left)}, their runs ${JSON.stringify(runs.filter((r) => left.some((x) => x.id === r.task)))}, `
        + `instances ${JSON.stringify(instances)}, leases ${JSON.stringify([engineA.store.lease(), engineB.store.lease()])}`);
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(overlaps(runs)).toEqual([]);
    const { rows } = await admin.query<{ id: string; abandoned_count: number }>('SELECT id, abandoned_count FROM tasks WHERE abandoned_count > 0 AND id = ANY($1::text[])', [ids]);
    // A lapse (no heartbeat written for a whole lease) is the only excuse for a taken row, and is known.
    const lapses = engineA.store.lease().lapses + engineB.store.lease().lapses;
    expect({ abandoned: rows.length, excusedByALapse: rows.length === 0 || lapses > 0 }).toEqual({ abandoned: rows.length, excusedByALapse: true });
  }, 120_000);

  it('a lapse while a run waits for its retry, its failed attempt in the commit in flight: the row is kept and the run goes on (its retry completes it)', async () => {
    const runs: Run[] = [];
    const storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 3 });
    const store = createPostgresEngineStore(storage, { leaseMs: 1000 });
    storages.push(storage);
    stores.push(store);
    const commitHeld = deferred();
    const commitMayGo = deferred();
    let holdNext = false;
    // The commit carrying the failed attempt waits (in flight for the engine) while the lapse is learnt.
    const held: EngineStore = {
      ...store,
      commit: async (b) => {
        if (holdNext && b.attemptFailures.length > 0) {
          holdNext = false;
          commitHeld.resolve();
          await commitMayGo.promise;
        }
        return store.commit(b);
      },
    };
    const engine = createEngine({ store: held, pollIntervalMs: 50, onError: () => undefined });
    engines.push(engine);
    const failNow = deferred();
    engine.handle('Lapse.Kept', async (_req: unknown, ctx: { taskId: string; attempt: number }) => {
      const run: Run = { who: 'a', task: ctx.taskId, attempt: ctx.attempt, begin: performance.now() };
      runs.push(run);
      if (ctx.attempt === 1) await failNow.promise;
      run.end = performance.now();
      if (ctx.attempt === 1) throw new Error('first attempt refused');
    }, { retry: { attempts: 2, backoffMs: 200, backoff: 'fixed' } });
    await engine.start();
    const id = await engine.dispatch('Lapse.Kept');
    await waitFor(async () => (await row(id)).status === 'InProgress' && runs.length === 1, 10_000, 'the start written');
    holdNext = true;
    failNow.resolve();
    await commitHeld.promise;
    // The heartbeat is found older than the lease at the next renewal: the instance gives up what it does not keep.
    await admin.query('UPDATE engine_instances SET heartbeat_at = heartbeat_at - 5000 WHERE id = $1', [store.instanceId]);
    await store.leaseTick();
    expect(store.lease().lapses).toBe(1);
    commitMayGo.resolve();
    await waitFor(async () => (await row(id)).status === 'Completed', 8_000, 'the task completed').catch(() => undefined);
    expect(await row(id)).toEqual({ status: 'Completed', abandoned_count: 0 });
    expect(runs.map((r) => r.attempt)).toEqual([1, 2]);
    expect(overlaps(runs)).toEqual([]);
    expect(engine.health().staleRunWrites).toBe(0);
  }, 60_000);
});
