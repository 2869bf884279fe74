import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';

describe('a new pooled PostgreSQL connection', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  beforeAll(async () => {
    process.on('warning', onWarning);
    database = await createTestDatabase('svc_conn_setup');
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 4 });
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await storage?.close();
    await database?.drop();
  });

  it('is set up before its first user: the idle-in-transaction default holds, and no query is sent beside the user\'s', async () => {
    // Four at once: each needs a connection of its own, new to the pool.
    const answers = await Promise.all([1, 2, 3, 4].map(() =>
      storage.query<{ t: string; pid: number }>(`SELECT current_setting('idle_in_transaction_session_timeout') AS t, pg_backend_pid() AS pid, pg_sleep(0.05)`)));
    expect(new Set(answers.map((a) => a.rows[0]!.pid)).size).toBe(4);
    expect(answers.map((a) => a.rows[0]!.t)).toEqual(['90s', '90s', '90s', '90s']);
    await new Promise((r) => setImmediate(r));
    // The driver warns when a query is sent on a client still busy with another.
    expect(warnings.filter((w) => w.includes('already executing a query'))).toEqual([]);
  });

  it('asks the kernel ahead for the heap pages of a bitmap scan (effective_io_concurrency 64), and keeps a higher value the database sets', async () => {
    const own = (await storage.query<{ v: string }>(`SELECT current_setting('effective_io_concurrency') AS v`)).rows[0]!.v;
    expect(own).toBe('64');
    const name = new URL(database.connectionString).pathname.slice(1);
    await storage.query(`ALTER DATABASE "${name}" SET effective_io_concurrency = 200`);
    const second = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 1 });
    try {
      expect((await second.query<{ v: string }>(`SELECT current_setting('effective_io_concurrency') AS v`)).rows[0]!.v).toBe('200');
    } finally {
      await second.close();
      await storage.query(`ALTER DATABASE "${name}" RESET effective_io_concurrency`);
    }
  });

  it('compiles no statement to machine code (JIT): a statement the planner costs high runs as planned, at once', async () => {
    const [available] = (await storage.query<{ a: boolean }>(`SELECT pg_jit_available() AS a`)).rows;
    // A server built without JIT has nothing to turn off (this test then shows nothing).
    if (!available!.a) return;
    const plan = await storage.transaction(async (c) => {
      // Every statement costs more than this: the server would compile each one.
      await c.query(`SET LOCAL jit_above_cost = 0`);
      return (await c.query<{ 'QUERY PLAN': [{ JIT?: unknown }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) SELECT SUM(i) FROM generate_series(1, 1000) AS i`)).rows[0]!['QUERY PLAN'][0];
    });
    expect(plan.JIT).toBeUndefined();
  });

  it('plans no parallel workers: a statement the planner would split among workers runs in the session alone', async () => {
    const plan = await storage.transaction(async (c) => {
      // Workers cost nothing here and every table is large enough for them: the server would plan a Gather.
      await c.query(`SET LOCAL parallel_setup_cost = 0; SET LOCAL parallel_tuple_cost = 0; SET LOCAL min_parallel_table_scan_size = 0`);
      await c.query(`CREATE TABLE parallel_probe AS SELECT i FROM generate_series(1, 10000) AS i`);
      await c.query(`ANALYZE parallel_probe`);
      const text = JSON.stringify((await c.query(`EXPLAIN (FORMAT JSON) SELECT SUM(i) FROM parallel_probe`)).rows[0]);
      await c.query(`DROP TABLE parallel_probe`);
      return text;
    });
    expect(plan).not.toMatch(/Gather/);
    expect(plan).toMatch(/Seq Scan/);
  });
});
