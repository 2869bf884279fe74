import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../../server/src/engine/Engine.js';
import type { Engine } from '../../../server/src/engine/types.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { waitFor } from '../../fixtures/waitFor.js';

// A process whose run waits for its retry (backoff after a failed attempt) and that stalls past
// its lease (SIGSTOP, a long pause) has its row taken over by another instance. When its retry
// comes due it must not begin: the row is no longer its run's. Here the stall is its heartbeat
// made older than the lease; the other instance's lease recovery takes the row and runs it.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

interface Instance {
  storage: PostgresStorage;
  store: PostgresEngineStore;
  engine: Engine;
  health: () => ReturnType<Engine['health']>;
}

describe('a retry of a run another instance took over', () => {
  it('does not begin in the stalled process: every handler begin of the task is the taking instance’s after the takeover', async () => {
    const database: TestDatabase = await createTestDatabase('svc_retry_takeover');
    cleanups.push(() => database.drop());
    const begins: { proc: string; attempt: number; at: number }[] = [];
    const open = async (proc: string, fail: boolean, heartbeatMs: number): Promise<Instance> => {
      const storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 3 });
      const store = createPostgresEngineStore(storage, { leaseMs: 2000, heartbeatMs });
      const engine = createEngine({ store, queues: { default: { concurrency: 1 } }, pollIntervalMs: 50, onError: () => undefined });
      engine.handle('Retry.Takeover', async (_request, ctx) => {
        begins.push({ proc, attempt: ctx.attempt, at: Date.now() });
        if (fail) throw new Error('first attempt fails');
      }, { retry: { attempts: 3, backoff: 'fixed', backoffMs: 4000 } });
      cleanups.push(async () => {
        await engine.stop({ graceMs: 0 });
        await store.dispose();
        await storage.close();
      });
      await engine.start();
      return { storage, store, engine, health: () => engine.health() };
    };
    // A's heartbeats far apart: the test, not its timer, decides when its lease lapses and is renewed.
    const a = await open('A', true, 60_000);
    const id = await a.engine.dispatch('Retry.Takeover', {});
    await waitFor(() => begins.length >= 1, 10_000, 'the first attempt', 5);
    // The attempt failed; its retry is due 4 s later. A stalls: no heartbeat for longer than the
    // lease (it then claims nothing), and the database sees its heartbeat lapsed.
    await waitFor(async () => (await a.storage.query<{ attempt: number }>(`SELECT attempt FROM tasks WHERE id = $1`, [id])).rows[0]?.attempt === 1,
      10_000, 'the failed attempt to be written', 10);
    await waitFor(() => a.store.lease().expired, 10_000, 'A to see its lease lapsed', 20);
    await a.storage.query(`UPDATE engine_instances SET heartbeat_at = heartbeat_at - 10000 WHERE id = $1`, [a.store.instanceId]);
    const b = await open('B', false, 500);
    await waitFor(async () => (await b.storage.query<{ status: string }>(`SELECT status FROM tasks WHERE id = $1`, [id])).rows[0]?.status === 'Completed',
      10_000, 'B to take the row over and complete it', 20).catch(async (err: Error) => {
      const row = (await b.storage.query(`SELECT status, instance_id, reserved_by, reserved_at, run_token, attempt, abandoned_count FROM tasks WHERE id = $1`, [id])).rows[0];
      const inst = (await b.storage.query(`SELECT id, heartbeat_at, ${'(extract(epoch FROM clock_timestamp()) * 1000)::bigint'} AS now FROM engine_instances`)).rows;
      throw new Error(`${err.message}: ${JSON.stringify({ row, inst, a: a.store.instanceId, b: b.store.instanceId, begins })}`);
    });
    // A's retry comes due (4 s after its failure); A renews its heartbeat (as after SIGCONT).
    await waitFor(() => begins.length >= 2 && Date.now() - begins[0]!.at > 4500, 10_000, 'A\u2019s retry to come due', 20);
    await a.store.leaseTick();
    await sleep(300);
    expect(begins.filter((x) => x.proc === 'A')).toHaveLength(1);
    expect(begins.filter((x) => x.proc === 'B')).toHaveLength(1);
    // A knows why it dropped its retry: its lease lapsed (its first heartbeat after the stall says so),
    // or, had the lapse gone unseen, the store refused the run (a stale run write).
    expect(a.store.lease().lapses + a.health().staleRunWrites).toBeGreaterThanOrEqual(1);
  }, 40_000);
});
