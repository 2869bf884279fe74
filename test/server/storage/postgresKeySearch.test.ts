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

const task = (taskKey: string | null, createdAt: number): NewTask => newTask('Keys.Work', { taskKey, createdAt });

/**
 * A search term that only task keys contain (no type, handler or argument search) lists the keyed
 * tasks by creation time as a plain scan of the task table does, and reads task rows for the page
 * only: the keys and their creation times come from a table of their own, kept with the tasks.
 */
describe('PostgreSQL key-substring search', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  let store: PostgresEngineStore;
  let monitoring: MonitoringStore;
  // 240 keyed tasks (three per creation time: the insertion order breaks ties), tasks without a
  // key and tasks whose key the terms below do not contain, interleaved.
  const keyed = Array.from({ length: 240 }, (_, i) => task(i % 2 === 0 ? `order-${i}` : `ORDER-${i}X`, 10_000 + Math.floor(i / 3)));
  const others = Array.from({ length: 240 }, (_, i) => task(i % 3 === 0 ? `batch_${i}` : null, 10_000 + Math.floor(i / 3)));

  beforeAll(async () => {
    database = await createTestDatabase('svc_keysearch');
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 2, rollupIntervalMs: 0 });
    store = createPostgresEngineStore(storage);
    monitoring = createPostgresMonitoringStore(storage);
    await store.commit(commitBatch(1_000, { insertTasks: keyed.flatMap((t, i) => [t, others[i]!]) }));
  });
  afterAll(async () => {
    await store?.dispose();
    await storage?.close();
    await database?.drop();
  });

  /** The page of a plain scan: keys compared letter by letter, lower-cased. */
  const expected = async (term: string, desc: boolean, offset: number, limit: number) => {
    const dir = desc ? 'DESC' : 'ASC';
    const { rows } = await storage.pool.query<{ id: string }>(
      `SELECT id FROM tasks WHERE strpos(lower(task_key), lower($1)) > 0 ORDER BY created_at ${dir}, seq ${dir} LIMIT $2 OFFSET $3`,
      [term, limit, offset],
    );
    return rows.map((r) => r.id);
  };

  it('pages the keys that contain the term in creation order, and reads the task table for the page only', async () => {
    // The statements the list runs, to read their plans.
    const { query, statements, restore } = recordStatements(storage);
    try {
      // `order-1` (trigram index) matches 111 keys in both cases; `r-` is too short for trigrams.
      for (const [term, total] of [['order-1', 111], ['r-', 240], ['1x', 24]] as const) {
        for (const [desc, page] of [[true, 1], [true, 2], [false, 3], [true, 6]] as const) {
          statements.length = 0;
          const label = `${term} ${desc ? 'desc' : 'asc'} page ${page}`;
          const listed = await monitoring.listTasks({ searchTerm: term, sortBy: 'CreatedAtUtc', sortDescending: desc, page, pageSize: 20 });
          expect(listed.totalCount, label).toBe(total);
          expect(listed.items.map((t) => t.id), label).toEqual(await expected(term, desc, (page - 1) * 20, 20));
          // The plans as the planner makes them for a large table (by index: here a scan of the
          // whole small table would be cheaper).
          let taskRows = 0;
          const c = await storage.pool.connect();
          try {
            await c.query(`SET enable_seqscan = off`);
            for (const { text, params } of statements) {
              const [plan] = (await c.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params)).rows[0]!['QUERY PLAN'];
              taskRows += rowsReadFrom(plan.Plan, 'tasks');
            }
          } finally {
            await c.query(`RESET enable_seqscan`);
            c.release();
          }
          expect(taskRows, label).toBeLessThanOrEqual(20);
        }
      }
    } finally {
      restore();
    }
  });

  it('keeps the keys with the tasks: new keyed tasks are found, status writes change nothing, deleted tasks are gone', async () => {
    const count = async (term: string) => (await monitoring.listTasks({ searchTerm: term, sortBy: 'CreatedAtUtc', sortDescending: true, page: 1, pageSize: 50 })).totalCount;
    const late = task('invoice-77', 20_000);
    await store.commit(commitBatch(2_000, { insertTasks: [late, task(null, 20_001)] }));
    expect(await count('invoice-7')).toBe(1);
    // Claims (status writes of every task) keep the keys as they were.
    const { claimed } = await store.commit(commitBatch(3_000, { dispatching: { promoteLimit: 0, claims: [{ queue: 'default', limit: 1_000 }], types: ['Keys.Work'], decide: null, reservationMs: 250 } }));
    expect(claimed.length).toBeGreaterThan(0);
    expect(await count('invoice-7')).toBe(1);
    expect(await count('order-1')).toBe(111);
    await storage.query(`DELETE FROM tasks WHERE id = $1 OR task_key = 'order-10'`, [late.id]);
    expect(await count('invoice-7')).toBe(0);
    expect(await count('order-1')).toBe(110);
    // Bulk actions select their targets through the same condition.
    const ids = await monitoring.taskIds({ searchTerm: 'ORDER-11' }, 1_000);
    expect(ids.length).toBe(11);
  });
});

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/** The rows the plan's scans of `relation` returned, over all their loops. */
function rowsReadFrom(node: PlanNode, relation: string): number {
  const own = node['Relation Name'] === relation ? node['Actual Rows'] * node['Actual Loops'] : 0;
  return own + (node.Plans ?? []).reduce((n, child) => n + rowsReadFrom(child, relation), 0);
}
