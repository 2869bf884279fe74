import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COUNTERS } from '../../../server/src/storage/common/readModels/counters.js';
import type { CommitBatch, EngineStore, FinishedRun, NewTask, RunnableTaskRow } from '../../../server/src/storage/EngineStore.js';
import { createPostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import { pgReadModelTriggerFunctions } from '../../../server/src/storage/postgres/readModels/readModelTriggerFunctions.js';
import { createSqliteEngineStore } from '../../../server/src/storage/sqlite/createSqliteEngineStore.js';
import { openSqliteStorage } from '../../../server/src/storage/sqlite/openSqliteStorage.js';
import { keepReadModelCounters as keepPostgresCounters } from '../../../server/src/storage/postgres/readModels/keptCounters.js';
import { keepReadModelCounters } from '../../../server/src/storage/sqlite/readModels/keptCounters.js';
import { FIXTURE_COUNTERS, FIXTURE_TABLES, RECOMPUTED, fixtureReads } from '../../fixtures/server/fixtureCounters.js';
import { createTestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { startsOf, tokenOf } from '../../fixtures/server/runTokens.js';

// A counter added to the description (test/fixtures/server/fixtureCounters.ts: one per source of
// facts) is kept by both backends from its entry alone: PostgreSQL's triggers, fast commit and
// rebuild generated from it, SQLite's task writer accumulating it and its rebuild generated from
// it. After a mixed workload each equals a recomputation from the task rows and the rebuilt read
// models, and the rebuild gives back the added counters' own tables equal.

const HOUR = 3_600_000;
type Row = Record<string, unknown>;

interface Backend {
  store: EngineStore;
  rows(sql: string): Promise<Row[]>;
  exec(sql: string): Promise<void>;
  rebuild(): Promise<void>;
  /** PostgreSQL: folds the delta rows into the rolled-up tables (its periodic roll-up); SQLite: nothing to fold. */
  rollUp(): Promise<void>;
  /** A table and, on PostgreSQL, its delta table, as one row set. */
  from(table: string): string;
  /** Deletes every row of a counter's table (on PostgreSQL its delta rows too). */
  empty(table: string): Promise<void>;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const description = [...COUNTERS, ...FIXTURE_COUNTERS];

async function sqliteBackend(): Promise<Backend> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-counters-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const storage = openSqliteStorage({ file: join(dir, 'tasks.db') });
  for (const [table, columns] of Object.entries(FIXTURE_TABLES)) storage.db.exec(`CREATE TABLE ${table} ${columns}`);
  keepReadModelCounters(storage.db, description);
  return {
    store: createSqliteEngineStore(storage),
    rows: async (sql) => storage.db.prepare(sql).all() as Row[],
    exec: async (sql) => void storage.db.exec(sql),
    rebuild: async () => storage.rebuildReadModels(),
    rollUp: async () => undefined,
    from: (table) => table,
    empty: async (table) => void storage.db.exec(`DELETE FROM ${table}`),
    close: async () => storage.close(),
  };
}

async function postgresBackend(): Promise<Backend> {
  const database = await createTestDatabase('counters_once');
  const storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 2, rollupIntervalMs: 0 });
  // The new counter's tables, then its triggers: what a migration adding it does.
  for (const [table, columns] of Object.entries(FIXTURE_TABLES)) {
    await storage.query(`CREATE TABLE ${table} ${columns}; CREATE TABLE ${table}_delta ${columns.replace(/, PRIMARY KEY \([^)]*\)/, '')}`);
  }
  await storage.query(pgReadModelTriggerFunctions(description));
  keepPostgresCounters(storage, description);
  const store = createPostgresEngineStore(storage);
  return {
    store,
    rows: async (sql) => (await storage.query<Row>(sql)).rows,
    exec: async (sql) => void (await storage.query(sql)),
    rebuild: () => storage.rebuildReadModels(),
    rollUp: async () => void (await storage.rollupReadModels()),
    from: (table) => `(SELECT * FROM ${table} UNION ALL SELECT * FROM ${table}_delta) AS ${table}`,
    empty: async (table) => void (await storage.query(`DELETE FROM ${table}; DELETE FROM ${table}_delta`)),
    close: async () => {
      await store.dispose();
      await storage.close();
      await database.drop();
    },
  };
}

const batch = (now: number, part: Partial<CommitBatch> = {}): CommitBatch => ({
  now, logs: [], insertTasks: [], cancels: [], attemptFailures: [], completeRuns: [], serviceStopped: [], capacities: new Map(), dispatching: null, ...part,
});

/** Numbers as numbers (PostgreSQL returns BIGINT and NUMERIC sums as text). */
const plain = (rows: Row[]) =>
  rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v])));

/**
 * New tasks over two days in two queues; a few cancelled while Queued; the rest reserved, started
 * and ended over many commits (completed, failed, cancelled while running, a recurring row's run
 * making it Pending again), short runs starting and ending in one commit.
 */
async function mixedWorkload(b: Backend): Promise<void> {
  // The runs (from base + 36 h, for about four hours) start two hours before a midnight, so that
  // they end on both days whatever the time the test runs at.
  const base = Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR - 38 * HOUR;
  const tasks: NewTask[] = Array.from({ length: 120 }, (_, i) => ({
    id: randomUUID(), type: ['Cnt.A', 'Cnt.B', 'Cnt.C'][i % 3]!, handler: 'h', request: JSON.stringify({ i }), queue: i % 4 === 0 ? 'mail' : 'default',
    taskKey: null, auditLevel: 'Full', createdAt: base + i * 17 * 60_000, scheduledAt: null, dueAt: 0, retryPolicy: null, timeoutMs: null,
    rateLimitKey: null, isRecurring: false, recurrence: null,
  }));
  await b.store.commit(batch(base + 36 * HOUR, { insertTasks: tasks }));
  await b.exec(`UPDATE tasks SET is_recurring = 1 WHERE id IN (${tasks.filter((_, i) => i % 10 === 5).map((t) => `'${t.id}'`).join(', ')})`);
  const cancelled = await b.store.commit(batch(base + 36 * HOUR + 1, { cancels: tasks.filter((_, i) => i % 13 === 7).map((t) => t.id) }));
  expect(cancelled.cancelled.length).toBeGreaterThan(5);
  let reserved: RunnableTaskRow[] = [];
  let running: RunnableTaskRow[] = [];
  let k = 0;
  for (let commit = 0; ; commit++) {
    // Commits an hour and a half apart: runs end on both days.
    const now = base + 36 * HOUR + 10 + commit * 5_400_000 / 8;
    const ending = [...running, ...reserved.filter((_, i) => i % 2 === 0)];
    const starting = reserved;
    running = reserved.filter((_, i) => i % 2 === 1);
    const runs = ending.map((r): FinishedRun => {
      const run = (x: Omit<FinishedRun, 'id' | 'token' | 'auditLevel' | 'endedAt'>): FinishedRun => ({ id: r.id, token: tokenOf(r.id), auditLevel: 'Full', endedAt: now, ...x });
      const kind = k++ % 5;
      if (r.is_recurring === 1) return run({ executionTimeMs: 3, outcome: 'Completed', exception: null, nextStatus: 'Pending', nextScheduledAt: now + 100 * HOUR, recurring: true });
      if (kind === 1) return run({ executionTimeMs: 0, outcome: 'Failed', exception: `Error: order ${k} rejected`, nextStatus: 'Failed', nextScheduledAt: null, recurring: false });
      if (kind === 2) return run({ executionTimeMs: 0, outcome: 'Cancelled', exception: null, nextStatus: 'Cancelled', nextScheduledAt: null, recurring: false });
      return run({ executionTimeMs: 1.5 + (k % 7), outcome: 'Completed', exception: null, nextStatus: 'Completed', nextScheduledAt: null, recurring: false });
    });
    const out = await b.store.commit(batch(now, {
      startRuns: startsOf(starting, now - 1), completeRuns: runs,
      dispatching: { promoteLimit: 0, claims: [{ queue: 'default', limit: 5 }, { queue: 'mail', limit: 3 }], types: ['Cnt.A', 'Cnt.B', 'Cnt.C'], decide: null, reservationMs: 250 },
    }));
    expect(out.finished.every(Boolean)).toBe(true);
    reserved = out.claimed;
    // Now and then the roll-up folds what was appended: later deltas add to rolled-up groups.
    if (commit % 3 === 2) await b.rollUp();
    if (reserved.length === 0 && running.length === 0) break;
  }
}

describe.each([['SQLite', sqliteBackend], ['PostgreSQL', postgresBackend]] as const)('a counter added to the description (%s)', (_name, open) => {
  it('is kept from its entry alone and equals a recomputation after a mixed workload', async () => {
    const b = await open();
    cleanups.push(() => b.close());
    await mixedWorkload(b);
    const reads = fixtureReads(b.from);
    const live = {
      tasksPerQueueDay: plain(await b.rows(reads.tasksPerQueueDay)),
      runsPerQueueDay: plain(await b.rows(reads.runsPerQueueDay)),
      failuresPerTypeDay: plain(await b.rows(reads.failuresPerTypeDay)),
    };
    // The added counters' tables are emptied first: what the rebuild gives back is its own.
    for (const table of Object.keys(FIXTURE_TABLES)) await b.empty(table);
    await b.rebuild();
    const recomputed = {
      tasksPerQueueDay: plain(await b.rows(RECOMPUTED.tasksPerQueueDay)),
      runsPerQueueDay: plain(await b.rows(RECOMPUTED.runsPerQueueDay)),
      failuresPerTypeDay: plain(await b.rows(RECOMPUTED.failuresPerTypeDay)),
    };
    expect(live).toEqual(recomputed);
    // The rebuild, generated from the same description, recomputes the added counters' own tables alike.
    expect({
      tasksPerQueueDay: plain(await b.rows(reads.tasksPerQueueDay)),
      runsPerQueueDay: plain(await b.rows(reads.runsPerQueueDay)),
      failuresPerTypeDay: plain(await b.rows(reads.failuresPerTypeDay)),
    }).toEqual(live);
    // The workload reached every kind of group: statuses, both days and queues, failures.
    expect(new Set(live.tasksPerQueueDay.map((r) => r['status']))).toEqual(new Set(['Completed', 'Failed', 'Cancelled', 'Pending']));
    expect(new Set(live.runsPerQueueDay.map((r) => r['day'])).size).toBeGreaterThan(1);
    expect(live.runsPerQueueDay.map((r) => r['queue'])).toEqual(expect.arrayContaining(['default', 'mail']));
    expect(live.failuresPerTypeDay.length).toBeGreaterThan(1);
  });
});
