import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewTask } from '../../../server/src/storage/EngineStore.js';
import type { MonitoringStore } from '../../../server/src/storage/MonitoringStore.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { migratePostgres } from '../../../server/src/storage/postgres/migrate.js';
import { pgMigrations } from '../../../server/src/storage/postgres/migrations/index.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createPostgresMonitoringStore } from '../../../server/src/storage/postgres/monitoring/createPostgresMonitoringStore.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { recordStatements } from '../../fixtures/server/recordedStatements.js';
import { commitBatch, newTask } from '../../fixtures/server/commitBatches.js';

const task = (request: object, extra: Partial<NewTask> = {}): NewTask =>
  newTask('Search.Work', { request: JSON.stringify(request), createdAt: 1_000, ...extra });

/**
 * The argument search reads the words of each request from their own table (kept by triggers on
 * tasks, so that status writes do not touch a full-text index): tasks stored before that table
 * existed, new tasks, a request replaced by a keyed dispatch and deleted tasks all answer as the
 * request column says.
 */
describe('PostgreSQL argument search over the task_search table', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  let store: PostgresEngineStore;
  let monitoring: MonitoringStore;
  const search = async (...requestSearch: string[]) =>
    (await monitoring.listTasks({ requestSearch, sortBy: 'CreatedAtUtc', sortDescending: false, page: 1, pageSize: 50 })).items.map((t) => t.id).sort();
  const alsoByName = async (searchTerm: string) =>
    (await monitoring.listTasks({ searchTerm, searchTermRequestTerms: [searchTerm], sortBy: 'CreatedAtUtc', sortDescending: false, page: 1, pageSize: 50 })).items
      .map((t) => t.id).sort();
  const oldId = randomUUID();

  beforeAll(async () => {
    database = await createTestDatabase('svc_argsearch');
    // A store last opened by a build before migration 9, holding a task.
    const c = new pg.Client({ connectionString: database.connectionString });
    await c.connect();
    await migratePostgres(c as unknown as pg.PoolClient, 'svc_monitor', pgMigrations.filter((m) => m.version < 9));
    await c.query(`INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at)
                   VALUES ($1, 'Search.Old', 'Search.OldHandler', '{"customer":"Ada Lovelace","plan":"gold"}', 'default', 'Completed', 'Full', 500)`, [oldId]);
    await c.end();
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 2, rollupIntervalMs: 0 });
    store = createPostgresEngineStore(storage);
    monitoring = createPostgresMonitoringStore(storage);
  });
  afterAll(async () => {
    await store?.dispose();
    await storage?.close();
    await database?.drop();
  });

  it('finds tasks stored before the migration, and new ones, by words and phrases of their request', async () => {
    expect(storage.appliedMigrations).toEqual(pgMigrations.filter((m) => m.version >= 9).map((m) => m.version));
    const a = task({ customer: 'Grace Hopper', plan: 'gold' });
    const b = task({ customer: 'Ada Byron', plan: 'silver' });
    await store.commit(commitBatch(2_000, { insertTasks: [a, b] }));
    expect(await search('gold')).toEqual([a.id, oldId].sort());
    expect(await search('"ada lovelace"')).toEqual([oldId]);
    expect(await search('ada')).toEqual([b.id, oldId].sort());
    expect(await search('ada', 'silver')).toEqual([b.id]);
    expect(await search('hopper', 'silver')).toEqual([]);
    expect(await alsoByName('hopper')).toEqual([a.id]);
    expect(await alsoByName('Search.Old')).toEqual([oldId]);
  });

  it('status writes leave the words alone; a replaced request is searched by its new words; a deleted task is gone', async () => {
    const keyed = task({ invoice: 'first-draft' }, { taskKey: 'invoice-7', dueAt: 60_000, scheduledAt: 60_000 });
    await store.commit(commitBatch(3_000, { insertTasks: [keyed] }));
    expect(await search('draft')).toEqual([keyed.id]);
    // The same key dispatched again while Pending replaces the request of the open row.
    const again = await store.commit(commitBatch(3_500, { insertTasks: [task({ invoice: 'final-copy' }, { taskKey: 'invoice-7', dueAt: 60_000, scheduledAt: 60_000 })] }));
    expect(again.inserted[0]).toMatchObject({ id: keyed.id, existing: true });
    expect(await search('draft')).toEqual([]);
    expect(await search('final', 'copy')).toEqual([keyed.id]);
    // Claims and run ends (the engine's status writes) keep it searchable.
    const { claimed } = await store.commit(commitBatch(4_000, { dispatching: { promoteLimit: 0, claims: [{ queue: 'default', limit: 10 }], types: ['Search.Work'], decide: null, reservationMs: 250 } }));
    expect(claimed.length).toBe(2);
    expect(await search('gold')).toHaveLength(2);
    await storage.query(`DELETE FROM tasks WHERE id = $1`, [oldId]);
    expect(await search('gold')).toHaveLength(1);
    const { rows } = await storage.query<{ n: number; tasks: number }>(`SELECT (SELECT COUNT(*) FROM task_search) AS n, (SELECT COUNT(*) FROM tasks) AS tasks`);
    expect(rows[0]!.n).toBe(rows[0]!.tasks);
  });

  it('reads the index for the rare words of the terms (by the statistics) and still matches whole phrases', async () => {
    // `cust` in every request, each customer number in two, `gold` in a quarter, `basic` in the
    // rest; row 7 also has "42 cust", the words the other way round, which is not the phrase CUST-42.
    const rows = Array.from({ length: 400 }, (_, i) =>
      task({ customer: `CUST-${i % 200}`, plan: i % 4 === 0 ? 'gold' : 'basic', note: i === 7 ? '42 cust' : 'x' }, { createdAt: 10_000 + i }),
    );
    await store.commit(commitBatch(5_000, { insertTasks: rows }));
    /** The words the index is read for, in alphabetical order (null: none). */
    const lookup = async (...terms: string[]) =>
      (await storage.query<{ q: string | null }>(`SELECT svc_request_lookup($1::text[])::text AS q`, [terms])).rows[0]!.q?.split(' & ').sort().join(' & ') ?? null;
    // No statistics yet: every word of the terms.
    expect(await lookup('CUST-42')).toBe(`'42' & 'cust'`);
    await storage.query('ANALYZE task_search');
    expect(await lookup('CUST-42')).toBe(`'42'`);
    expect(await lookup('CUST-42', '"final copy"')).toBe(`'42' & 'copy' & 'final'`);
    // A word in a quarter of the requests still narrows the candidates; one in three quarters does not.
    expect(await lookup('gold', 'CUST-40')).toBe(`'40' & 'gold'`);
    expect(await lookup('basic', 'CUST-42')).toBe(`'42'`);
    // Every word common: the least common one alone.
    expect(["'cust'", "'customer'"]).toContain(await lookup('customer cust'));
    expect(await lookup('---')).toBeNull();
    const page = await monitoring.listTasks({ requestSearch: ['CUST-42'], sortBy: 'CreatedAtUtc', sortDescending: true, page: 1, pageSize: 50 });
    expect(page.items.map((t) => t.id)).toEqual([rows[242]!.id, rows[42]!.id]);
    expect(page.totalCount).toBe(2);
    expect(await search('"42 cust"')).toEqual([rows[7]!.id]);
    expect(await search('gold', 'CUST-40')).toEqual([rows[40]!.id, rows[240]!.id].sort());
    expect(await search('gold', 'CUST-42')).toEqual([]);
  });

  it('an argument search alone pages its matches in creation order and reads the task table for the page only', async () => {
    // 300 matches, creation times with ties (the insertion order breaks them), among other tasks.
    const zed = Array.from({ length: 300 }, (_, i) => task({ customer: 'Zed Corp', line: i }, { createdAt: 50_000 + Math.floor(i / 3) }));
    await store.commit(commitBatch(6_000, { insertTasks: [...zed.slice(0, 150), task({ customer: 'Other Ltd' }), ...zed.slice(150)] }));
    // The statements the list runs, to read their plans.
    const { query, statements, restore } = recordStatements(storage);
    const expected = async (desc: boolean, offset: number) =>
      (await query<{ id: string }>(
        `SELECT id FROM tasks WHERE request LIKE '%Zed Corp%' ORDER BY created_at ${desc ? 'DESC' : 'ASC'}, seq ${desc ? 'DESC' : 'ASC'} LIMIT 20 OFFSET $1`, [offset],
      )).rows.map((r) => r.id);
    try {
      for (const [desc, page] of [[true, 1], [true, 2], [false, 3], [true, 15]] as const) {
        statements.length = 0;
        const listed = await monitoring.listTasks({ requestSearch: ['"zed corp"'], sortBy: 'CreatedAtUtc', sortDescending: desc, page, pageSize: 20 });
        expect(listed.totalCount).toBe(300);
        expect(listed.items.map((t) => t.id)).toEqual(await expected(desc, (page - 1) * 20));
        // The task table is read for the page's rows, not once per match (300). The plans are read
        // as the planner makes them for a large table (by index: here a scan of the whole small
        // table would be cheaper).
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
        expect(taskRows).toBeLessThanOrEqual(20);
      }
    } finally {
      restore();
    }
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
