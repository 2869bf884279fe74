import type { PoolClient } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommitBatch, NewTask } from '../../../server/src/storage/EngineStore.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { commitBatch, newTask } from '../../fixtures/server/commitBatches.js';

const N = 1000;
const task = (i: number): NewTask =>
  newTask('Deletes.Work', { request: JSON.stringify({ order: `o-${i}` }), taskKey: i % 2 === 0 ? `key-${i}` : null, createdAt: 1_000 + i });
const inserts = (insertTasks: NewTask[]): CommitBatch => commitBatch(5_000, { insertTasks });

/**
 * A delete of many tasks in a session whose first delete of tasks ran over empty tables (a new
 * database) removes their search and key rows reading the deleted rows once: the delete triggers'
 * joins are planned for the rows of the statement at hand, not kept from that first delete (which
 * planned a scan of the deleted rows for each row of task_search and task_keys: n × n).
 */
describe('PostgreSQL: deleting tasks', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  let store: PostgresEngineStore;
  let session: PoolClient;

  beforeAll(async () => {
    database = await createTestDatabase('svc_taskdeletes');
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 2, rollupIntervalMs: 0 });
    store = createPostgresEngineStore(storage);
    session = await storage.pool.connect();
  });
  afterAll(async () => {
    session?.release();
    await store?.dispose();
    await storage?.close();
    await database?.drop();
  });

  it(`${N} tasks deleted after a first delete over empty tables: each trigger reads the deleted rows once; search rows, keys and counts go with them`, async () => {
    await session.query(`DELETE FROM tasks`);
    for (let k = 0; k < N; k += 1000) await store.commit(inserts(Array.from({ length: 1000 }, (_, i) => task(k + i))));
    const count = async (table: string) => (await session.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${table}`)).rows[0]!.n;
    expect([await count('task_search'), await count('task_keys')]).toEqual([N, N / 2]);

    // Every plan the delete runs, its triggers' statements included, with the rows each node read.
    const plans: string[] = [];
    session.on('notice', (n) => plans.push(n.message ?? ''));
    await session.query(`LOAD 'auto_explain'`);
    await session.query(`SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on;
      SET auto_explain.log_analyze = on; SET auto_explain.log_timing = off; SET auto_explain.log_level = notice`);
    await session.query(`DELETE FROM tasks`);
    await session.query(`SET auto_explain.log_min_duration = -1`);

    const rescans = plans.join('\n').split('\n').filter((line) => /Named Tuplestore Scan.*loops=(\d+)/.exec(line) !== null && !/loops=1\)/.test(line));
    expect(rescans).toEqual([]);
    expect(plans.some((p) => p.includes('DELETE FROM task_search'))).toBe(true);
    expect([await count('tasks'), await count('task_search'), await count('task_keys')]).toEqual([0, 0, 0]);
    const { rows: counted } = await session.query(`SELECT status, SUM(n) AS n FROM stat_tasks_v GROUP BY 1 HAVING SUM(n) <> 0`);
    expect(counted).toEqual([]);
  }, 120_000);
});
