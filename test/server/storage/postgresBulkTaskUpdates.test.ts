import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommitBatch, NewTask } from '../../../server/src/storage/EngineStore.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { createPostgresTaskManagementStore } from '../../../server/src/storage/postgres/management/createPostgresTaskManagementStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { commitBatch, newTask } from '../../fixtures/server/commitBatches.js';

const N = 1000;
const task = (i: number): NewTask => newTask('Bulk.Work', { request: JSON.stringify({ order: `o-${i}` }), createdAt: 1_000 + i });
const inserts = (insertTasks: NewTask[]): CommitBatch => commitBatch(5_000, { insertTasks });

/**
 * An operator's bulk cancel of many tasks in a session whose first UPDATE of tasks ran over empty
 * tables: the UPDATE trigger reads each transition table once. A plan kept from that first statement
 * rescanned one transition table for each row of the other (n × n: a bulk action of 20,000 tasks
 * ran for minutes).
 */
describe('PostgreSQL: bulk updates of tasks', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  let store: PostgresEngineStore;
  const plans: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('svc_bulkplans');
    // One connection: every statement below runs in the same session.
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 1, rollupIntervalMs: 0 });
    store = createPostgresEngineStore(storage);
    const session = await storage.pool.connect();
    session.on('notice', (n) => plans.push(n.message ?? ''));
    session.release();
  });
  afterAll(async () => {
    await store?.dispose();
    await storage?.close();
    await database?.drop();
  });

  /** The plan lines of `work`'s statements, triggers included, whose transition table was scanned more than once. */
  const rescansDuring = async (work: () => Promise<unknown>): Promise<string[]> => {
    plans.length = 0;
    await storage.pool.query(`LOAD 'auto_explain'`);
    await storage.pool.query(`SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on;
      SET auto_explain.log_analyze = on; SET auto_explain.log_timing = off; SET auto_explain.log_level = notice`);
    try {
      await work();
    } finally {
      await storage.pool.query(`SET auto_explain.log_min_duration = -1`);
    }
    return plans.join('\n').split('\n').filter((line) => /Named Tuplestore Scan.*loops=\d+/.test(line) && !/loops=1\)/.test(line));
  };
  const count = async (sql: string) => Number((await storage.pool.query<{ n: string }>(sql)).rows[0]?.n ?? 0);

  it(`a bulk cancel of ${N} tasks after a first update over empty tables: each trigger reads the changed rows once; the counts follow`, async () => {
    await storage.pool.query(`UPDATE tasks SET attempt = 0`);
    const tasks = Array.from({ length: N }, (_, i) => task(i));
    await store.commit(inserts(tasks));
    const bulk = createPostgresTaskManagementStore(storage, async () => {});

    let succeeded = 0;
    const rescans = await rescansDuring(async () => {
      succeeded = (await bulk.applyBulkBatch({ action: 'cancel', ids: tasks.map((t) => t.id), now: 6_000, actor: 'operator' })).succeeded;
    });
    expect(rescans).toEqual([]);
    expect(plans.some((p) => p.includes('stat_tasks'))).toBe(true);
    expect(succeeded).toBe(N);
    expect(await count(`SELECT SUM(n) AS n FROM stat_tasks_v WHERE status = 'Cancelled'`)).toBe(N);
    expect(await count(`SELECT COALESCE(SUM(n), 0) AS n FROM stat_tasks_v WHERE status <> 'Cancelled'`)).toBe(0);
  }, 120_000);
});
