import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresTaskManagementStore } from '../../../server/src/storage/postgres/management/createPostgresTaskManagementStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';

// An operator's action whose transaction the server rolls back for a deadlock (an engine's commit
// locked the same rows in another order) is run again, not answered with an error: nothing of it
// had been applied.
describe('PostgreSQL management: a transaction lost to a deadlock is run again', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  beforeAll(async () => {
    database = await createTestDatabase('svc_mgmt_conflict');
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 2 });
  });
  afterAll(async () => {
    await storage?.close();
    await database?.drop();
  });

  it('a bulk cancel that deadlocks with another transaction cancels every row on its next try', async () => {
    for (const id of ['row-a', 'row-b']) {
      await storage.query(
        `INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at) VALUES ($1, 'T', 'H', '{}', 'q', 'Queued', 'Full', 1)`,
        [id],
      );
    }
    const management = createPostgresTaskManagementStore(storage, async () => undefined);
    const other = new pg.Client({ connectionString: database.connectionString, options: `-c search_path="${storage.schema}"` });
    other.on('error', () => undefined);
    await other.connect();
    try {
      // The other transaction checks for deadlocks late, so the operator's is the one rolled back.
      await other.query(`SET deadlock_timeout = '5s'`);
      await other.query('BEGIN');
      await other.query(`SELECT id FROM tasks WHERE id = 'row-b' FOR UPDATE`);
      const bulk = management.applyBulkBatch({ action: 'cancel', ids: ['row-a', 'row-b'], now: 2, actor: 'operator' });
      let settled: unknown = 'pending';
      bulk.then((r) => (settled = r), (e: Error) => (settled = e.message));
      // The bulk cancel holds row-a (id order) and waits for row-b.
      const waiting = async () =>
        (await storage.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)).rows[0]!.n > 0;
      const deadline = Date.now() + 10_000;
      while (!(await waiting())) {
        if (Date.now() > deadline) throw new Error(`the bulk cancel never waited for row-b: ${JSON.stringify(settled)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      // Now the other transaction asks for row-a: a deadlock, which the bulk cancel's session detects.
      const crossing = other.query(`SELECT id FROM tasks WHERE id = 'row-a' FOR UPDATE`);
      await crossing;
      await other.query('COMMIT');
      const result = await bulk;
      expect(result.succeeded).toBe(2);
      const { rows } = await storage.query<{ id: string; status: string }>(`SELECT id, status FROM tasks ORDER BY id`);
      expect(rows).toEqual([{ id: 'row-a', status: 'Cancelled' }, { id: 'row-b', status: 'Cancelled' }]);
    } finally {
      await other.end();
    }
  }, 30_000);
});
