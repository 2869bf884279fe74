import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewTask } from '../../../server/src/storage/EngineStore.js';
import type { MonitoringStore } from '../../../server/src/storage/MonitoringStore.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createPostgresMonitoringStore } from '../../../server/src/storage/postgres/monitoring/createPostgresMonitoringStore.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { recordStatements } from '../../fixtures/server/recordedStatements.js';
import { commitBatch, newTask } from '../../fixtures/server/commitBatches.js';

// Creation times with ties (three tasks a millisecond): the insertion order breaks them.
const task = (i: number): NewTask =>
  newTask(`Deep.Work${i % 3}`, { handler: 'Deep.WorkHandler', queue: i % 2 === 0 ? 'default' : 'mail', createdAt: 10_000 + Math.floor(i / 3) });

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Heap Fetches'?: number;
  Plans?: PlanNode[];
}

/** The task rows the plan read whole: rows of its scans of `tasks` other than index-only ones, and those scans' heap fetches. */
function taskRowsRead(node: PlanNode): number {
  const own = node['Relation Name'] !== 'tasks' ? 0 : node['Node Type'] === 'Index Only Scan' ? (node['Heap Fetches'] ?? 0) : node['Actual Rows'] * node['Actual Loops'];
  return own + (node.Plans ?? []).reduce((n, child) => n + taskRowsRead(child), 0);
}

/**
 * A deep page of the task list (thousands of rows before it) finds its position in an index that
 * holds the sort key and the insertion order, and reads only its own rows whole: at 10 M tasks,
 * page 1,000 of the default list read the 20,000 rows before it (~1,000 heap pages).
 */
describe('PostgreSQL task list: a deep page', () => {
  const ROWS = 1_500;
  let database: TestDatabase;
  let storage: PostgresStorage;
  let store: PostgresEngineStore;
  let monitoring: MonitoringStore;

  beforeAll(async () => {
    database = await createTestDatabase('svc_deeppage');
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 3, rollupIntervalMs: 0 });
    store = createPostgresEngineStore(storage);
    monitoring = createPostgresMonitoringStore(storage);
    await store.commit(commitBatch(5_000, { insertTasks: Array.from({ length: ROWS }, (_, i) => task(i)) }));
    // The visibility map, as autovacuum keeps it: an index-only scan then reads no task row.
    await storage.query('VACUUM ANALYZE tasks');
  }, 60_000);
  afterAll(async () => {
    await store?.dispose();
    await storage?.close();
    await database?.drop();
  });

  it('lists the rows a plain scan orders there, and reads the task table for the page only', async () => {
    // The statements the list runs, to read their plans.
    const { query, statements, restore } = recordStatements(storage);
    const expected = async (desc: boolean, offset: number, where = '') =>
      (await query<{ id: string }>(
        `SELECT id FROM tasks ${where} ORDER BY created_at ${desc ? 'DESC' : 'ASC'}, seq ${desc ? 'DESC' : 'ASC'} LIMIT 20 OFFSET $1`, [offset],
      )).rows.map((r) => r.id);
    try {
      for (const [desc, page] of [[true, 61], [false, 70], [true, 75]] as const) {
        statements.length = 0;
        const listed = await monitoring.listTasks({ sortBy: 'CreatedAtUtc', sortDescending: desc, page, pageSize: 20 });
        expect(listed.totalCount).toBe(ROWS);
        expect(listed.items.map((t) => t.id)).toEqual(await expected(desc, (page - 1) * 20));
        let read = 0;
        const c = await storage.pool.connect();
        try {
          // The plans the planner makes for a large table, by index and nested loop (here a scan of
          // the whole small table, or a hash of it, would be cheaper).
          await c.query(`SET enable_seqscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off`);
          for (const { text, params } of statements) {
            const [plan] = (await c.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params)).rows[0]!['QUERY PLAN'];
            read += taskRowsRead(plan.Plan);
          }
        } finally {
          await c.query(`RESET enable_seqscan; RESET enable_hashjoin; RESET enable_mergejoin`);
          c.release();
        }
        expect(read).toBeLessThanOrEqual(20);
      }
      // With a filter the page still holds the rows a plain scan finds there.
      const mail = await monitoring.listTasks({ queueName: 'mail', sortBy: 'CreatedAtUtc', sortDescending: true, page: 51, pageSize: 20 });
      expect(mail.items.map((t) => t.id)).toEqual(await expected(true, 1_000, `WHERE queue = 'mail'`));
    } finally {
      restore();
    }
  });
});
