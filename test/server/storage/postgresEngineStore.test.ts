import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommitBatch, NewTask } from '../../../server/src/storage/EngineStore.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { bundledScript } from '../../fixtures/bundledScript.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { snapshotReadModels } from '../../fixtures/server/postgresReadModelSnapshot.js';

const WORKER = fileURLToPath(new URL('../../fixtures/server/pgStoreWorker.ts', import.meta.url));

const batch = (now: number, part: Partial<CommitBatch> = {}): CommitBatch => ({
  now, logs: [], insertTasks: [], cancels: [], attemptFailures: [], completeRuns: [], serviceStopped: [], capacities: new Map(), dispatching: null, ...part,
});
const task = (i: number, extra: Partial<NewTask> = {}): NewTask => ({
  id: randomUUID(), type: 'Pg.Work', handler: 'Pg.WorkHandler', request: JSON.stringify({ i }), queue: 'default', taskKey: null, auditLevel: 'Full',
  createdAt: Date.now() + i, scheduledAt: null, dueAt: 0, retryPolicy: null, timeoutMs: null, rateLimitKey: null, isRecurring: false, recurrence: null, ...extra,
});

function runWorker(connectionString: string, mode: 'drain' | 'claimAndHang', size: number): { child: ChildProcess; result: Promise<{ instanceId: string; claimed: string[] }> } {
  const child = spawn(process.execPath, [bundledScript(WORKER), connectionString, mode, String(size)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const result = new Promise<{ instanceId: string; claimed: string[] }>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line && out.includes('\n')) resolve(JSON.parse(line));
    });
    child.on('exit', (code) => {
      if (!out.includes('\n')) reject(new Error(`worker exited ${code}: ${err}`));
    });
  });
  return { child, result };
}

describe('PostgreSQL EngineStore shared by instances in separate processes', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  let store: PostgresEngineStore;
  beforeAll(async () => {
    database = await createTestDatabase('svc_store');
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 4 });
    store = createPostgresEngineStore(storage, { leaseMs: 1000 });
  });
  afterAll(async () => {
    await store?.dispose();
    await storage?.close();
    await database?.drop();
  });

  it('3 processes drain 3,000 tasks: each claimed and ended exactly once, counters equal a recomputation', async () => {
    const tasks = Array.from({ length: 3000 }, (_, i) => task(i));
    const inserted = await store.commit(batch(Date.now(), { insertTasks: tasks }));
    expect(inserted.inserted.every((x) => x.status === 'Queued' && !x.existing)).toBe(true);
    const workers = [0, 1, 2].map(() => runWorker(database.connectionString, 'drain', 40));
    const results = await Promise.all(workers.map((w) => w.result));
    const all = results.flatMap((r) => r.claimed);
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(3000);
    expect(results.every((r) => r.claimed.length > 0)).toBe(true);
    const { rows } = await storage.query<{ status: string; run_count: number; n: number }>(
      `SELECT status, run_count, COUNT(*) AS n FROM tasks GROUP BY 1, 2`,
    );
    expect(rows).toEqual([{ status: 'Completed', run_count: 1, n: 3000 }]);
    const audits = await storage.query<{ new_status: string; n: number }>(`SELECT new_status, COUNT(*) AS n FROM status_audit GROUP BY 1 ORDER BY 1`);
    expect(audits.rows).toEqual([
      { new_status: 'Completed', n: 3000 },
      { new_status: 'InProgress', n: 3000 },
      { new_status: 'Queued', n: 3000 },
    ]);
    const counts = await storage.query<{ status: string; n: number }>(`SELECT status, SUM(n) AS n FROM stat_tasks_v GROUP BY status HAVING SUM(n) <> 0`);
    expect(counts.rows).toEqual([{ status: 'Completed', n: 3000 }]);
  }, 120_000);

  it('kill -9 of an instance holding claimed rows: any live instance re-queues them after the lease', async () => {
    const tasks = Array.from({ length: 30 }, (_, i) => task(i));
    await store.commit(batch(Date.now(), { insertTasks: tasks }));
    const w = runWorker(database.connectionString, 'claimAndHang', 30);
    const held = await w.result;
    expect(held.claimed).toHaveLength(30);
    w.child.kill('SIGKILL');
    await new Promise((r) => w.child.once('exit', r));
    // Within the lease nothing moves; after it, this instance's lease tick recovers the rows.
    expect(await store.leaseTick()).toBe(0);
    const deadline = Date.now() + 10_000;
    let recovered = 0;
    while (recovered === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      recovered += await store.leaseTick();
    }
    const { rows } = await storage.query<{ status: string; n: number }>(`SELECT status, COUNT(*) AS n FROM tasks WHERE id = ANY($1::text[]) GROUP BY 1`, [held.claimed]);
    expect(rows).toEqual([{ status: 'Queued', n: 30 }]);
    const instances = await storage.query<{ id: string }>(`SELECT id FROM engine_instances`);
    expect(instances.rows.map((r) => r.id)).not.toContain(held.instanceId);
    // Drained by a fresh instance: nothing lost, nothing left non-terminal.
    const again = runWorker(database.connectionString, 'drain', 30);
    expect((await again.result).claimed.sort()).toEqual([...held.claimed].sort());
    const open = await storage.query<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks WHERE status NOT IN ('Completed', 'Failed', 'Cancelled')`);
    expect(open.rows[0]!.n).toBe(0);
  }, 60_000);

  it('rows an expired instance had reserved (its handlers may have begun unrecorded) count as abandoned runs; a live instance\'s reservations are left alone', async () => {
    const [fresh, worn, mine] = [task(0, { queue: 'reserved' }), task(1, { queue: 'reserved' }), task(2, { queue: 'reserved' })];
    await store.commit(batch(Date.now(), { insertTasks: [fresh, worn, mine] }));
    // An instance whose heartbeat lapsed long ago, holding two reservations; one row already abandoned maxAbandoned (3) times.
    // Its instance row comes last: the store's own timer may tick in between, and an expired
    // instance is looked at once (its row removed), so its reservations must be there by then.
    await storage.query(`UPDATE tasks SET reserved_by = 'expired-one', reserved_at = $2 WHERE id = ANY($1::text[])`, [[fresh.id, worn.id], Date.now()]);
    await storage.query(`UPDATE tasks SET abandoned_count = 3 WHERE id = $1`, [worn.id]);
    await storage.query(`UPDATE tasks SET reserved_by = $2, reserved_at = $3 WHERE id = $1`, [mine.id, store.instanceId, Date.now()]);
    await storage.query(`INSERT INTO engine_instances (id, host, pid, started_at, heartbeat_at) VALUES ('expired-one', 'h', 1, 0, 0)`);
    // A lease tick recovers them: this one, or the store's own timer's. A tick that finds another
    // holding the recovery lock does nothing (the other may have looked before the instance row
    // above existed), so tick again until one has counted them. The bound only ends a test that
    // never counts: a loaded machine's PostgreSQL took more than 5 s for it once.
    const deadline = Date.now() + 25_000;
    const counted = async () => (await storage.query<{ n: number }>(`SELECT abandoned_count AS n FROM tasks WHERE id = $1`, [fresh.id])).rows[0]!.n;
    while ((await counted()) === 0 && Date.now() < deadline) {
      await store.leaseTick();
      await new Promise((r) => setTimeout(r, 50));
    }
    const { rows } = await storage.query<{ id: string; status: string; reserved_by: string | null; reserved_at: number | null; abandoned_count: number; exception: string | null }>(
      `SELECT id, status, reserved_by, reserved_at, abandoned_count, exception FROM tasks WHERE id = ANY($1::text[])`, [[fresh.id, worn.id, mine.id]],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(fresh.id)).toMatchObject({ status: 'Queued', reserved_by: null, reserved_at: null, abandoned_count: 1, exception: null });
    expect(byId.get(worn.id)).toMatchObject({ status: 'Failed', reserved_by: null, abandoned_count: 4 });
    expect(byId.get(worn.id)!.exception).toMatch(/abandoned 4 times while running/);
    expect(byId.get(mine.id)).toMatchObject({ status: 'Queued', reserved_by: store.instanceId, abandoned_count: 0 });
    // Only the status that moved is audited.
    const audits = await storage.query<{ task_id: string; new_status: string }>(
      `SELECT task_id, new_status FROM status_audit WHERE task_id = ANY($1::text[]) AND new_status <> 'Queued' ORDER BY id`, [[fresh.id, worn.id, mine.id]],
    );
    expect(audits.rows).toEqual([{ task_id: worn.id, new_status: 'Failed' }]);
    // The read models equal a recomputation.
    const live = await snapshotReadModels(storage);
    await storage.rebuildReadModels();
    expect(await snapshotReadModels(storage)).toEqual(live);
  }, 60_000);

  it('a commit with nothing to write (its queues have no room to claim in) answers an empty outcome', async () => {
    const out = await store.commit(batch(Date.now(), {
      dispatching: { promoteLimit: 0, claims: [{ queue: 'full', limit: 0 }], reservationMs: 1000, types: ['Pg.Work'], decide: null },
    }));
    expect(out).toMatchObject({ claimed: [], started: [], finished: [], inserted: [] });
  });

  it('task keys stay unique among open rows and queue capacity is global when instances write at once', async () => {
    const other = createPostgresEngineStore(storage);
    try {
      const key = `key-${randomUUID()}`;
      const [a, b] = await Promise.all([
        store.commit(batch(Date.now(), { insertTasks: [task(1, { taskKey: key, queue: 'keyed' })] })),
        other.commit(batch(Date.now(), { insertTasks: [task(2, { taskKey: key, queue: 'keyed' })] })),
      ]);
      expect(a.inserted[0]!.id).toBe(b.inserted[0]!.id);
      expect([a.inserted[0]!.existing, b.inserted[0]!.existing].sort()).toEqual([false, true]);
      const capacities = new Map([['capped', 5]]);
      await Promise.all(
        [store, other, store, other].map((s, k) =>
          s.commit(batch(Date.now(), { capacities, insertTasks: Array.from({ length: 10 }, (_, i) => task(k * 10 + i, { queue: 'capped' })) })),
        ),
      );
      const { rows } = await storage.query<{ status: string; n: number }>(`SELECT status, COUNT(*) AS n FROM tasks WHERE queue = 'capped' GROUP BY 1 ORDER BY 1`);
      expect(rows).toEqual([
        { status: 'Queued', n: 5 },
        { status: 'WaitingQueue', n: 35 },
      ]);
    } finally {
      await other.dispose();
    }
  });
});
