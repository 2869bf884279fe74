// @backends sqlite — opens its own PostgreSQL database too (both backends' plans in one file).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScheduleManager } from '../../../server/src/engine/schedules/index.js';
import type { MonitoringStore, TaskListQuery } from '../../../server/src/storage/MonitoringStore.js';
import { createMonitoringStore } from '../../../server/src/storage/common/reads/createMonitoringStore.js';
import type { ReadDb } from '../../../server/src/storage/common/reads/ReadDb.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { postgresReadDb } from '../../../server/src/storage/postgres/monitoring/postgresReadDb.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createSqliteEngineStore } from '../../../server/src/storage/sqlite/createSqliteEngineStore.js';
import { sqliteReadDb } from '../../../server/src/storage/sqlite/monitoring/sqliteReadDb.js';
import { openSqliteStorage } from '../../../server/src/storage/sqlite/openSqliteStorage.js';
import type { SqliteStorage } from '../../../server/src/storage/Storage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { recordStatements } from '../../fixtures/server/recordedStatements.js';
import { scheduleInternals } from '../../fixtures/scheduleInternals.js';

// A catch-up backlog of 300 minute schedules down 30 min (9,000 compact occurrences): two in a
// small group of their own (queue 'rare', type 'Group.Rare'), the rest 'Group.Every' in the
// default queue. A page of the small group (a queue or type filter, or the first group of a sort
// by type) reads the compact rows of the group's schedules only: which schedules have compact rows
// and which of them match is answered from the schedules and their blocks' counts, not by a seek
// into the compact table and a row of the view for every schedule (at 1,000 schedules and 1.44 M
// compact rows that was most of such a page on PostgreSQL). Each page is the one a plain sort of
// task rows and compact rows together gives.

const MIN = 60_000;
const T0 = Date.parse('2026-06-01T09:00:30Z');
const SCHEDULES = 300;
const GROUP = 2;
const OCCURRENCES = SCHEDULES * 30;
const PAGE = 20;

const SORT_COLUMNS: Partial<Record<TaskListQuery['sortBy'], string[]>> = {
  CreatedAtUtc: ['created_at'],
  Type: ['type', 'created_at'],
  QueueName: ['queue', 'created_at'],
};

/** Reads of the small group, and the page of each. */
const GROUP_READS: [string, TaskListQuery][] = [
  ['queue rare, newest first', { queueName: 'rare', sortBy: 'CreatedAtUtc', sortDescending: true, page: 1, pageSize: PAGE }],
  ['queue rare, newest first, page 3', { queueName: 'rare', sortBy: 'CreatedAtUtc', sortDescending: true, page: 3, pageSize: PAGE }],
  ['type Group.Rare, oldest first', { taskType: 'Group.Rare', sortBy: 'CreatedAtUtc', sortDescending: false, page: 1, pageSize: PAGE }],
  ['Pending of queue rare by type', { queueName: 'rare', statuses: ['Pending'], sortBy: 'Type', sortDescending: true, page: 1, pageSize: PAGE }],
  ['every row by type, descending (the small group first)', { sortBy: 'Type', sortDescending: true, page: 1, pageSize: PAGE }],
];

interface Opened {
  store: MonitoringStore;
  /** Runs `read` and returns the statements it issued, each with its parameters. */
  recording<T>(read: () => Promise<T>): Promise<{ result: T; statements: { sql: string; params: unknown[] }[] }>;
  /** The ids of a plain sort of every task row and compact row together, for the query's filter and sort. */
  reference(q: TaskListQuery): Promise<string[]>;
}

const referenceSql = (q: TaskListQuery, ord: string, placeholder: (i: number) => string) => {
  const conds: string[] = [];
  const params: unknown[] = [];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    conds.push(sql(placeholder(params.length)));
  };
  if (q.queueName !== undefined) add((p) => `queue = ${p}`, q.queueName);
  if (q.taskType !== undefined) add((p) => `type = ${p}`, q.taskType);
  if (q.statuses) add((p) => `status = ${p}`, q.statuses[0]);
  const where = conds.length > 0 ? `WHERE ${conds.join(' AND ')}` : '';
  const dir = q.sortDescending ? 'DESC' : 'ASC';
  const cols = `id, type, queue, status, created_at, ${ord} AS ord`;
  const order = [...SORT_COLUMNS[q.sortBy]!, 'ord'].map((c) => `${c} ${dir}`).join(', ');
  // The same parameters for both sides: SQLite's are positional, PostgreSQL's numbered.
  return { sql: `SELECT id FROM (SELECT ${cols} FROM tasks ${where} UNION ALL SELECT ${cols} FROM pending_occurrence_tasks ${where}) AS u ORDER BY ${order}`, params };
};

async function seed(store: Parameters<typeof scheduleInternals>[0]): Promise<void> {
  const clock = { now: T0 };
  const manager = createScheduleManager(scheduleInternals(store, () => clock.now, []));
  for (let i = 0; i < SCHEDULES; i++) {
    const rare = i < GROUP;
    await manager.upsert({ key: `minute-${i}`, type: rare ? 'Group.Rare' : 'Group.Every', queue: rare ? 'rare' : undefined, cron: '* * * * *', misfire: { policy: 'ReplayAll', overflowCap: 2000 } });
  }
  clock.now = T0 + 30 * MIN;
  expect((await manager.materializer.drain(clock.now)).written).toBe(OCCURRENCES);
}

const pageOf = (ids: string[], q: TaskListQuery) => ids.slice((q.page - 1) * q.pageSize, q.page * q.pageSize);

describe('SQLite: a small group’s page reads no compact row of other schedules', () => {
  let dir: string;
  let storage: SqliteStorage;
  let opened: Opened;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'compact-group-'));
    storage = openSqliteStorage({ file: join(dir, 'tasks.db') });
    await seed(createSqliteEngineStore(storage));
    const inner = sqliteReadDb(storage.db);
    let recorded: { sql: string; params: unknown[] }[] = [];
    const db: ReadDb = { dialect: inner.dialect, features: inner.features, query: (sql, params = []) => (recorded.push({ sql, params: [...params] }), inner.query(sql, params)) };
    opened = {
      store: createMonitoringStore(db),
      async recording(read) {
        recorded = [];
        const result = await read();
        return { result, statements: recorded };
      },
      async reference(q) {
        const { sql, params } = referenceSql(q, 'rowid', () => '?');
        return storage.db.prepare(sql).pluck().all(...params, ...params) as string[];
      },
    };
  }, 60_000);
  afterAll(() => {
    storage?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each(GROUP_READS)('%s: the page of a plain sort; no statement seeks the compact table once a schedule', async (_name, q) => {
    const { result, statements } = await opened.recording(() => opened.store.listTasks(q));
    expect(result.items.map((t) => t.id)).toEqual(pageOf(await opened.reference(q), q));
    for (const { sql, params } of statements) {
      const plan = (storage.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((p) => p.detail);
      // Every schedule (a scan of occurrence_schedules) with a search of the compact table for each:
      // a seek into its indexes a schedule, whatever the page.
      const everySchedule = plan.some((d) => /^SCAN r\b/.test(d));
      const compactSeek = plan.some((d) => /^SEARCH (p|q|x|m)\b.*(ux_pending_occurrences|ix_pending_occurrences)/.test(d));
      expect(everySchedule && compactSeek, `${sql}\n${plan.join('\n')}`).toBe(false);
    }
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/** The compact rows (or index entries of them) a plan took: rows of its scans of `pending_occurrences`, over every loop. */
function compactRowsRead(node: PlanNode): number {
  const own = node['Relation Name'] === 'pending_occurrences' ? node['Actual Rows'] * node['Actual Loops'] : 0;
  return own + (node.Plans ?? []).reduce((n, child) => n + compactRowsRead(child), 0);
}

describe('PostgreSQL: a small group’s page reads no compact row of other schedules', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  let engineStore: PostgresEngineStore;
  let store: MonitoringStore;

  beforeAll(async () => {
    database = await createTestDatabase('svc_compact_group');
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 3, rollupIntervalMs: 0 });
    engineStore = createPostgresEngineStore(storage);
    await seed(engineStore);
    await storage.query('VACUUM ANALYZE pending_occurrences, compact_seq_blocks, occurrence_schedules, tasks');
    store = createMonitoringStore(postgresReadDb(storage));
  }, 60_000);
  afterAll(async () => {
    await engineStore?.dispose();
    await storage?.close();
    await database?.drop();
  });

  it.each(GROUP_READS)('%s: the page of a plain sort; the compact rows read are the group’s, not one a schedule', async (_name, q) => {
    const { query, statements, restore } = recordStatements(storage);
    try {
      const listed = await store.listTasks(q);
      const { sql, params } = referenceSql(q, 'seq', (i) => `$${i}`);
      const expected = (await query<{ id: string }>(sql, params)).rows.map((r) => r.id);
      expect(listed.items.map((t) => t.id)).toEqual(pageOf(expected, q));
      let read = 0;
      const plans: string[] = [];
      const c = await storage.pool.connect();
      try {
        // The plans the planner makes for a large table, by index and nested loop (here a scan of
        // the whole small table, or a hash of it, would be cheaper).
        await c.query(`SET enable_seqscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off`);
        for (const s of statements) {
          const [plan] = (await c.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${s.text}`, s.params)).rows[0]!['QUERY PLAN'];
          const n = compactRowsRead(plan.Plan);
          read += n;
          if (n > 0) plans.push(`${n}: ${s.text}`);
        }
      } finally {
        await c.query(`RESET enable_seqscan; RESET enable_hashjoin; RESET enable_mergejoin`);
        c.release();
      }
      // The group's schedules' rows up to the page's end (a merge: each an index entry and a row),
      // the page's rows, the bounds of seqs: far fewer than one a schedule (300), let alone two (a
      // seek into the compact table and a row of the view a schedule).
      const wanted = q.page * q.pageSize;
      expect(read, plans.join('\n')).toBeLessThanOrEqual(2 * GROUP * wanted + q.pageSize + 10);
      expect(read, plans.join('\n')).toBeLessThan(SCHEDULES);
    } finally {
      restore();
    }
  });
});
