import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { COUNTERS } from '../../../server/src/storage/postgres/readModels/readModelDeltas.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';

// PostgreSQL's read-model deltas come from one description (readModelDeltas.ts): the statement
// triggers are generated from it (migration 13) as the fast commit's deltas are, so every counter
// listed there is appended by the triggers, and a plain UPDATE's finished run reaches all of them.

describe('read-model deltas from one description (PostgreSQL)', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  beforeAll(async () => {
    database = await createTestDatabase('svc_deltas');
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 2, rollupIntervalMs: 0 });
  });
  afterAll(async () => {
    await storage?.close();
    await database?.drop();
  });

  it('the UPDATE trigger appends to the delta table of every counter of the description; no other trigger does', async () => {
    const fn = async (name: string) => (await storage.query<{ src: string }>(`SELECT prosrc AS src FROM pg_proc WHERE proname = $1`, [name])).rows[0]?.src ?? '';
    const updated = await fn('svc_tasks_updated');
    expect(COUNTERS.filter((c) => !updated.includes(`INSERT INTO ${c.table}_delta`)).map((c) => c.table)).toEqual([]);
    const { rows } = await storage.query<{ tgname: string }>(`SELECT tgname FROM pg_trigger WHERE tgrelid = 'tasks'::regclass AND tgname LIKE 'tr_tasks_%' ORDER BY 1`);
    expect(rows.map((r) => r.tgname)).not.toContain('tr_tasks_runs_finished');
  });

  it('a failed run written by a plain UPDATE (the trigger path) reaches the run buckets, the failure groups and the throughput', async () => {
    const hour = 500_000;
    const ended = hour * 3_600_000 + 1_234;
    await storage.query(`INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at, scheduled_at, started_at)
      VALUES ('d1', 'D.Job', 'D.Handler', '{}', 'dq', 'InProgress', 'Full', 1, 1, 1)`);
    await storage.query(`UPDATE tasks SET status = 'Failed', run_count = run_count + 1, last_outcome = 'Failed', last_execution_at = $1,
      execution_time_ms = 7, exception = 'Boom 42' WHERE id = 'd1'`, [ended]);
    const one = async (sql: string) => (await storage.query<Record<string, unknown>>(sql)).rows;
    expect(await one(`SELECT bucket::int AS bucket, SUM(failed)::int AS failed FROM stat_runs_hour_v WHERE type = 'D.Job' GROUP BY 1`)).toEqual([{ bucket: hour, failed: 1 }]);
    expect(await one(`SELECT fingerprint, SUM(n)::int AS n, MAX(sample_task_id) AS sample FROM failure_groups_hour_v WHERE type = 'D.Job' GROUP BY 1`))
      .toEqual([{ fingerprint: 'Boom #', n: 1, sample: 'd1' }]);
    expect(await one(`SELECT SUM(n)::int AS n FROM stat_queue_finished_10s_delta WHERE queue = 'dq'`)).toEqual([{ n: 1 }]);
    expect(await one(`SELECT status, SUM(n)::int AS n FROM stat_tasks_v WHERE type = 'D.Job' GROUP BY 1 HAVING SUM(n) <> 0`)).toEqual([{ status: 'Failed', n: 1 }]);
  });
});
