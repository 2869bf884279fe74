import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createScheduleManager, type DurableScheduleManager } from '../../../server/src/engine/schedules/index.js';
import type { CommitBatch, EngineStore, FinishedRun } from '../../../server/src/storage/EngineStore.js';
import { createPostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import { createSqliteEngineStore } from '../../../server/src/storage/sqlite/createSqliteEngineStore.js';
import { openSqliteStorage } from '../../../server/src/storage/sqlite/openSqliteStorage.js';
import { rebuildSearchRows } from '../../../server/src/storage/sqlite/readModels/rebuildSearchRows.js';
import type { SqliteStorage } from '../../../server/src/storage/Storage.js';
import { createTestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { snapshotReadModels } from '../../fixtures/server/postgresReadModelSnapshot.js';
import { CATCH_UP_DOWN, CATCH_UP_HOUR, CATCH_UP_T0, upsertCatchUpSchedules } from '../../fixtures/server/catchUpSchedules.js';
import { scheduleInternals } from '../../fixtures/scheduleInternals.js';
import { startsOf, tokenOf } from '../../fixtures/server/runTokens.js';

// A catch-up writes its occurrences in bulk (audits, search rows and read-model counts from the
// rows written); when it ends, all of them must be what a rebuild from the task table gives.

const T0 = CATCH_UP_T0;
const HOUR = CATCH_UP_HOUR;
const DOWN = CATCH_UP_DOWN;

/**
 * A schedule manager over `store` whose clock the test moves, writing at most 700 rows per
 * transaction, as task rows (`compactFrom` absent) or compact from `compactFrom` rows on.
 */
function catchUpManager(store: EngineStore, clock: { now: number }, compactFrom = Number.POSITIVE_INFINITY): DurableScheduleManager {
  return createScheduleManager(scheduleInternals(store, () => clock.now, []), { rowsPerTransaction: 700, compactFrom });
}

type Row = Record<string, unknown>;
const all = (db: Database, sql: string) => db.prepare(sql).all() as Row[];

/** What the read models and the argument search show, independent of search-row numbering. */
function sqliteView(db: Database): Record<string, unknown> {
  const search = (term: string) => db.prepare(`SELECT s.task_id FROM task_request_fts f JOIN task_search_rows s ON s.id = f.rowid
    WHERE task_request_fts MATCH ? ORDER BY 1`).pluck().all(`"${term}"`);
  const keyed = (term: string) => db.prepare(`SELECT s.task_id FROM task_key_fts k JOIN task_search_rows s ON s.id = k.rowid
    WHERE task_key_fts MATCH ? ORDER BY 1`).pluck().all(`"${term}"`);
  return {
    stat_tasks: all(db, 'SELECT queue, type, status, is_recurring, is_occurrence, n FROM stat_tasks WHERE n <> 0 ORDER BY 1, 2, 3, 4, 5'),
    stat_created_hour: all(db, 'SELECT hour, type, status, n FROM stat_created_hour WHERE n <> 0 ORDER BY 1, 2, 3'),
    stat_created_day: all(db, 'SELECT day, type, status, n FROM stat_created_day WHERE n <> 0 ORDER BY 1, 2, 3'),
    type_handlers: all(db, 'SELECT type, handler FROM monitor_type_handlers ORDER BY 1, 2'),
    search_rows: all(db, 'SELECT task_id, created_at, queue, type, is_recurring, is_occurrence, status FROM task_search_rows ORDER BY task_id'),
    // key order is creation order (ties in insertion order): the same order as the rebuild's rowid numbering
    search_row_order: db.prepare('SELECT task_id FROM task_search_rows ORDER BY id').pluck().all(),
    ordered: db.prepare('SELECT ordered FROM search_row_order').pluck().get(),
    acme: search('ACME'),
    newsletter: search('newsletter'),
    probe: search('db'),
    keys: keyed('report'),
  };
}

/**
 * A fresh SQLite file with the schedules of upsertSchedules written at T0; `body` moves the
 * clock and drains. The file is removed afterwards.
 */
async function withSqliteSchedules(
  body: (storage: SqliteStorage, manager: DurableScheduleManager, clock: { now: number }, store: EngineStore) => Promise<void>,
  compactFrom?: number,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'catchup-rm-'));
  const storage = openSqliteStorage({ file: join(dir, 'tasks.db') });
  try {
    const clock = { now: T0 };
    const store = createSqliteEngineStore(storage);
    const manager = catchUpManager(store, clock, compactFrom);
    await upsertCatchUpSchedules(manager);
    await body(storage, manager, clock, store);
  } finally {
    storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The read models and search rows recomputed from the task table show what `live` showed. */
function expectSqliteViewAsRebuilt(storage: SqliteStorage, live: Record<string, unknown>): void {
  storage.rebuildReadModels();
  rebuildSearchRows(storage.db);
  expect(sqliteView(storage.db)).toEqual(live);
}

const compactCount = (db: Database) => db.prepare('SELECT COUNT(*) FROM pending_occurrences').pluck().get() as number;

/** `n` occurrences in all, task rows and compact ones, no slot of a schedule twice (in one form or across both). */
function expectEachSlotOnce(db: Database, n: number): void {
  const slots = db.prepare(`SELECT COUNT(*) AS n, COUNT(DISTINCT parent_task_id || '/' || nominal_slot_at) AS slots FROM (
    SELECT parent_task_id, nominal_slot_at FROM tasks WHERE parent_task_id IS NOT NULL
    UNION ALL SELECT parent_task_id, nominal_slot_at FROM pending_occurrence_tasks)`).get();
  expect(slots).toEqual({ n, slots: n });
}

const batch = (now: number, part: Partial<CommitBatch> = {}): CommitBatch => ({
  now, logs: [], insertTasks: [], cancels: [], attemptFailures: [], completeRuns: [], serviceStopped: [], capacities: new Map(), dispatching: null, ...part,
});

/**
 * One dispatch at `now` (promote up to `promote` due rows, claim up to `claim` billing rows), the
 * claimed rows started, the first `complete` of them completed. Answers how many were claimed.
 */
async function runSome(store: EngineStore, now: number, promote: number, claim: number, complete: number): Promise<number> {
  const c = await store.commit(batch(now, {
    dispatching: { promoteLimit: promote, claims: [{ queue: 'billing', limit: claim }], types: ['Billing.Invoice'], decide: null, reservationMs: 60_000 },
  }));
  await store.commit(batch(now + 1, { startRuns: startsOf(c.claimed, now + 1) }));
  const ends = c.claimed.slice(0, complete).map((r): FinishedRun => ({
    id: r.id, token: tokenOf(r.id), auditLevel: r.audit_level, endedAt: now + 2, executionTimeMs: 3, outcome: 'Completed', exception: null,
    nextStatus: 'Completed', nextScheduledAt: null, recurring: false,
  }));
  await store.commit(batch(now + 2, { completeRuns: ends }));
  return c.claimed.length;
}

describe('a catch-up leaves audits, read models and argument search as a rebuild would', () => {
  it('SQLite: many write transactions, one with slots already written', () =>
    withSqliteSchedules(async (storage, manager, clock) => {
      const db = storage.db;
      clock.now = T0 + DOWN;
      const first = await manager.materializer.drain(clock.now);
      expect(first.written).toBe(1800 + 360 + 120 + 30);
      // Another engine that saw an older cursor: the slots already written are skipped, the new ones written.
      db.prepare(`UPDATE tasks SET cursor_at = cursor_at - ? WHERE task_key = 'billing-run'`).run(10 * 60_000);
      clock.now += 5 * 60_000;
      const second = await manager.materializer.drain(clock.now);
      expect(second.written).toBe(5 + 1);

      const occurrences = db.prepare('SELECT COUNT(*) FROM tasks WHERE parent_task_id IS NOT NULL').pluck().get() as number;
      expect(occurrences).toBe(1800 + 360 + 120 + 30 + 6);
      // One Pending audit per occurrence whose audit level records it, at the time it was written.
      expect(all(db, `SELECT t.audit_level, a.new_status, COUNT(*) AS n, COUNT(DISTINCT a.task_id) AS tasks FROM status_audit a
        JOIN tasks t ON t.id = a.task_id WHERE t.parent_task_id IS NOT NULL GROUP BY 1, 2 ORDER BY 1`)).toEqual([
        { audit_level: 'Full', new_status: 'Pending', n: 1800 + 30 + 5, tasks: 1800 + 30 + 5 },
      ]);
      expect(db.prepare(`SELECT COUNT(*) FROM status_audit a JOIN tasks t ON t.id = a.task_id
        WHERE t.parent_task_id IS NOT NULL AND a.updated_at <> t.created_at`).pluck().get()).toBe(0);

      const live = sqliteView(db);
      expect((live['acme'] as string[]).length).toBe(1800 + 30 + 5 + 2);
      expect((live['probe'] as string[]).length).toBe(120 + 1);
      expect(live['ordered']).toBe(1);
      expectSqliteViewAsRebuilt(storage, live);
    }), 60_000);

  it('SQLite: a catch-up written behind the newest task (clock went back) leaves the key order marked unordered, as a rebuild does', () =>
    withSqliteSchedules(async (storage, manager, clock) => {
      // A schedule created an hour after the catch-up will run: its search row is the newest.
      clock.now = T0 + DOWN + HOUR;
      await manager.upsert({ key: 'late', type: 'Ops.Late', request: { host: 'db-9' }, every: '1h' });
      clock.now = T0 + DOWN;
      expect((await manager.materializer.drain(clock.now)).written).toBe(1800 + 360 + 120 + 30);

      const live = sqliteView(storage.db);
      expect(live['ordered']).toBe(0);
      expect((live['probe'] as string[]).length).toBe(120 + 2);
      expectSqliteViewAsRebuilt(storage, live);
    }), 60_000);

  it('SQLite, compact: a catch-up written as compact occurrences (and slots already written as task rows skipped either way) '
    + 'leaves read models and search rows as a rebuild would, before and after part of it was promoted and run', () =>
    withSqliteSchedules(async (storage, manager, clock, store) => {
      const db = storage.db;
      // 20 minutes in: a few occurrences, fewer than compactFrom, as task rows.
      clock.now = T0 + 20 * 60_000;
      const early = await manager.materializer.drain(clock.now);
      expect(early.written).toBeGreaterThan(20);
      expect(compactCount(db)).toBe(0);
      // An engine with an older cursor for billing-run: the catch-up that follows is compact and
      // must skip the ten billing slots already written as task rows.
      db.prepare(`UPDATE tasks SET cursor_at = cursor_at - ? WHERE task_key = 'billing-run'`).run(10 * 60_000);
      clock.now = T0 + DOWN;
      const catchUp = await manager.materializer.drain(clock.now);
      expect(early.written + catchUp.written).toBe(1800 + 360 + 120 + 30);
      expect(compactCount(db)).toBe(catchUp.written);
      expectEachSlotOnce(db, 1800 + 360 + 120 + 30);
      // Again with an older cursor, now behind compact occurrences: a small write (task rows) skips those.
      db.prepare(`UPDATE tasks SET cursor_at = cursor_at - ? WHERE task_key = 'billing-run'`).run(10 * 60_000);
      clock.now += 5 * 60_000;
      expect((await manager.materializer.drain(clock.now)).written).toBe(5 + 1);
      expectEachSlotOnce(db, 1800 + 360 + 120 + 30 + 6);
      // Compact occurrences have no audit and no search row yet; the read models count them.
      expect(db.prepare(`SELECT COUNT(*) FROM status_audit a JOIN pending_occurrences p ON p.id = a.task_id`).pluck().get()).toBe(0);
      expect(db.prepare(`SELECT COUNT(*) FROM task_search_rows s JOIN pending_occurrences p ON p.id = s.task_id`).pluck().get()).toBe(0);
      expect(db.prepare(`SELECT SUM(n) FROM stat_tasks WHERE is_occurrence = 1 AND status = 'Pending'`).pluck().get()).toBe(2310 + 6);

      let live = sqliteView(db);
      expectSqliteViewAsRebuilt(storage, live);

      // Part of it promoted (compact occurrences become task rows first), claimed, started, some completed.
      clock.now += 60_000;
      const claimed = await runSome(store, clock.now, 700, 120, 70);
      expect(claimed).toBe(120);
      // The 700 compact occurrences due first became task rows (then Queued, with the due task rows).
      expect(compactCount(db)).toBe(catchUp.written - 700);
      expectEachSlotOnce(db, 2316);
      // Each spilled occurrence got its Pending audit at its creation time (audit level permitting), and its search row.
      expect(db.prepare(`SELECT COUNT(*) FROM tasks t WHERE t.parent_task_id IS NOT NULL AND t.audit_level = 'Full' AND NOT EXISTS
        (SELECT 1 FROM status_audit a WHERE a.task_id = t.id AND a.new_status = 'Pending' AND a.updated_at = t.created_at)`).pluck().get()).toBe(0);
      expect(db.prepare(`SELECT COUNT(*) FROM tasks t WHERE NOT EXISTS (SELECT 1 FROM task_search_rows s WHERE s.task_id = t.id)`).pluck().get()).toBe(0);
      expect(db.prepare(`SELECT status, COUNT(*) AS n FROM tasks WHERE parent_task_id IS NOT NULL GROUP BY 1 ORDER BY 1`).all()).toEqual(
        expect.arrayContaining([{ status: 'Completed', n: 70 }, { status: 'InProgress', n: 50 }]),
      );
      live = sqliteView(db);
      expectSqliteViewAsRebuilt(storage, live);
    }, 50), 60_000);

  it('PostgreSQL, compact: the same catch-up as compact occurrences (slots already written as task rows skipped either way) '
    + 'leaves read models as a rebuild would, before and after part of it was promoted and run', async () => {
    const database = await createTestDatabase('svc_catchup_compact');
    const storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 3, rollupIntervalMs: 0 });
    const store = createPostgresEngineStore(storage);
    const q = async (sql: string, params: unknown[] = []) => (await storage.query<Row>(sql, params)).rows;
    const n = async (sql: string) => Number((await q(sql))[0]!['n']);
    const compact = () => n('SELECT COUNT(*) AS n FROM pending_occurrences');
    const eachSlotOnce = async (total: number) =>
      expect(await q(`SELECT COUNT(*)::int AS n, COUNT(DISTINCT (parent_task_id, nominal_slot_at))::int AS slots FROM (
        SELECT parent_task_id, nominal_slot_at FROM tasks WHERE parent_task_id IS NOT NULL
        UNION ALL SELECT parent_task_id, nominal_slot_at FROM pending_occurrence_tasks) AS o`)).toEqual([{ n: total, slots: total }]);
    /** The read models as the triggers kept them equal what a rebuild from the task rows and the compact rows gives. */
    const expectAsRebuilt = async () => {
      const live = await snapshotReadModels(storage);
      await storage.rebuildReadModels();
      expect(await snapshotReadModels(storage)).toEqual(live);
    };
    const olderCursor = () => q(`UPDATE tasks SET cursor_at = cursor_at - $1 WHERE task_key = 'billing-run'`, [10 * 60_000]);
    try {
      const clock = { now: T0 };
      const manager = catchUpManager(store, clock, 50);
      await upsertCatchUpSchedules(manager);
      // 20 minutes in: a few occurrences, fewer than compactFrom, as task rows.
      clock.now = T0 + 20 * 60_000;
      const early = await manager.materializer.drain(clock.now);
      expect(early.written).toBeGreaterThan(20);
      expect(await compact()).toBe(0);
      // An engine with an older cursor for billing-run: the compact catch-up skips the ten billing slots written as task rows.
      await olderCursor();
      clock.now = T0 + DOWN;
      const catchUp = await manager.materializer.drain(clock.now);
      expect(early.written + catchUp.written).toBe(1800 + 360 + 120 + 30);
      expect(await compact()).toBe(catchUp.written);
      await eachSlotOnce(2310);
      // Again behind compact occurrences: a small write (task rows) skips those.
      await olderCursor();
      clock.now += 5 * 60_000;
      expect((await manager.materializer.drain(clock.now)).written).toBe(5 + 1);
      await eachSlotOnce(2316);
      // Compact occurrences have no audit and no search row yet; the read models count them.
      expect(await n(`SELECT COUNT(*) AS n FROM status_audit a JOIN pending_occurrences p ON p.id = a.task_id`)).toBe(0);
      expect(await n(`SELECT SUM(n) AS n FROM stat_tasks_v WHERE is_occurrence = 1 AND status = 'Pending'`)).toBe(2316);
      await expectAsRebuilt();

      // Part of it promoted (compact occurrences become task rows first), claimed, started, some completed.
      clock.now += 60_000;
      expect(await runSome(store, clock.now, 700, 120, 70)).toBe(120);
      expect(await compact()).toBe(catchUp.written - 700);
      await eachSlotOnce(2316);
      // Each spilled occurrence got its Pending audit at its creation time (audit level permitting), and its search words.
      expect(await n(`SELECT COUNT(*) AS n FROM tasks t WHERE t.parent_task_id IS NOT NULL AND t.audit_level = 'Full' AND NOT EXISTS
        (SELECT 1 FROM status_audit a WHERE a.task_id = t.id AND a.new_status = 'Pending' AND a.updated_at = t.created_at)`)).toBe(0);
      expect(await n(`SELECT COUNT(*) AS n FROM tasks t WHERE NOT EXISTS (SELECT 1 FROM task_search s WHERE s.seq = t.seq)`)).toBe(0);
      expect(await q(`SELECT status, COUNT(*)::int AS n FROM tasks WHERE parent_task_id IS NOT NULL GROUP BY 1 ORDER BY 1`)).toEqual(
        expect.arrayContaining([{ status: 'Completed', n: 70 }, { status: 'InProgress', n: 50 }]),
      );
      await expectAsRebuilt();
    } finally {
      await store.dispose();
      await storage.close();
      await database.drop();
    }
  }, 120_000);

  it('PostgreSQL, compact: the same catch-up by two instances at once writes each slot once, counted as a rebuild counts it', async () => {
    const database = await createTestDatabase('svc_catchup_compact2');
    const open = () => openPostgresStorage({ connectionString: database.connectionString, poolSize: 3, rollupIntervalMs: 0 });
    const storages = [await open(), await open()];
    const stores = storages.map((s) => createPostgresEngineStore(s));
    try {
      const clock = { now: T0 };
      const managers = stores.map((s) => catchUpManager(s, clock, 50));
      await upsertCatchUpSchedules(managers[0]!);
      clock.now = T0 + DOWN;
      const outcomes = await Promise.all(managers.map((m) => m.materializer.drain(clock.now)));
      expect(outcomes[0]!.written + outcomes[1]!.written).toBe(2310);
      const q = async (sql: string) => (await storages[0]!.query<Row>(sql)).rows;
      // Compact, but for a transaction left with fewer than compactFrom (50) slots once the other
      // instance's are left out: those are written as task rows. Each slot once either way (below).
      const compact = (await q(`SELECT COUNT(*)::int AS n FROM pending_occurrences`))[0]!.n as number;
      expect(compact).toBeGreaterThan(2310 - 2 * 50);
      expect(await q(`SELECT COUNT(*)::int AS n, COUNT(DISTINCT (parent_task_id, nominal_slot_at))::int AS slots FROM (
        SELECT parent_task_id, nominal_slot_at FROM tasks WHERE parent_task_id IS NOT NULL
        UNION ALL SELECT parent_task_id, nominal_slot_at FROM pending_occurrence_tasks) AS o`)).toEqual([{ n: 2310, slots: 2310 }]);
      const live = await snapshotReadModels(storages[0]!);
      await storages[0]!.rebuildReadModels();
      expect(await snapshotReadModels(storages[1]!)).toEqual(live);
    } finally {
      for (const s of stores) await s.dispose();
      for (const s of storages) await s.close();
      await database.drop();
    }
  }, 120_000);

  it('PostgreSQL: the same catch-up by two instances at once', async () => {
    const database = await createTestDatabase('svc_catchup_rm');
    const open = () => openPostgresStorage({ connectionString: database.connectionString, poolSize: 3, rollupIntervalMs: 0 });
    const storages = [await open(), await open()];
    const stores = storages.map((s) => createPostgresEngineStore(s));
    try {
      const clock = { now: T0 };
      const managers = stores.map((s) => catchUpManager(s, clock));
      await upsertCatchUpSchedules(managers[0]!);
      clock.now = T0 + DOWN;
      const outcomes = await Promise.all(managers.map((m) => m.materializer.drain(clock.now)));
      expect(outcomes[0]!.written + outcomes[1]!.written).toBe(1800 + 360 + 120 + 30);
      const q = async (sql: string) => (await storages[0]!.query<Row>(sql)).rows;
      expect(await q(`SELECT COUNT(*)::int AS n, COUNT(DISTINCT (parent_task_id, nominal_slot_at))::int AS slots
        FROM tasks WHERE parent_task_id IS NOT NULL`)).toEqual([{ n: 2310, slots: 2310 }]);
      expect(await q(`SELECT t.audit_level, a.new_status, COUNT(*)::int AS n, COUNT(DISTINCT a.task_id)::int AS tasks FROM status_audit a
        JOIN tasks t ON t.id = a.task_id WHERE t.parent_task_id IS NOT NULL GROUP BY 1, 2 ORDER BY 1`)).toEqual([
        { audit_level: 'Full', new_status: 'Pending', n: 1830, tasks: 1830 },
      ]);
      const live = await snapshotReadModels(storages[0]!);
      expect(live['stat_tasks']!.filter((r) => r['is_occurrence'] === 1 || r['is_occurrence'] === '1').map((r) => Number(r['n']))
        .reduce((a, b) => a + b, 0)).toBe(2310);
      await storages[0]!.rebuildReadModels();
      expect(await snapshotReadModels(storages[1]!)).toEqual(live);
    } finally {
      for (const s of stores) await s.dispose();
      for (const s of storages) await s.close();
      await database.drop();
    }
  }, 120_000);
});
