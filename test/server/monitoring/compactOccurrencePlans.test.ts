// @backends sqlite — the query plans held here are SQLite's (EXPLAIN QUERY PLAN); PostgreSQL's compact reads answer the same rows (compactOccurrenceReads)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskSortField, TaskStatus } from '../../../server/src/contracts/index.js';
import { createScheduleManager } from '../../../server/src/engine/schedules/index.js';
import type { MonitoringStore, TaskListQuery } from '../../../server/src/storage/MonitoringStore.js';
import { createMonitoringStore } from '../../../server/src/storage/common/reads/createMonitoringStore.js';
import type { ReadDb } from '../../../server/src/storage/common/reads/ReadDb.js';
import { createSqliteEngineStore } from '../../../server/src/storage/sqlite/createSqliteEngineStore.js';
import { openSqliteStorage } from '../../../server/src/storage/sqlite/openSqliteStorage.js';
import { sqliteReadDb } from '../../../server/src/storage/sqlite/monitoring/sqliteReadDb.js';
import type { SqliteStorage } from '../../../server/src/storage/Storage.js';
import { scheduleInternals } from '../../fixtures/scheduleInternals.js';
import { insertTask } from '../../fixtures/server/servedMonitoring.js';
import { spillCompact } from '../../fixtures/server/spillCompact.js';

// A catch-up backlog of 50,400 compact occurrences (35 minute schedules of three types in four
// queues, and two written first in a small group of their own, 24 h down) among a few task rows.
// The task list pages its compact rows by an index (created_at: migration 16; scheduled_at:
// migration 15; each schedule's rows: migration 19): no statement of a list with the default sort,
// a status filter, a queue or type filter, any sort or a later page (the middle one too) scans the
// compact table whole or sorts it, and each page holds the rows a plain sort of task rows and
// compact rows together gives. A page deep in the list (a type or queue sort, a large queue or
// type) is placed by the counts of compact rows by block of seqs (migration 20), reading only the
// block that holds it.

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const T0 = Date.parse('2026-05-04T08:00:30Z');
const SCHEDULES = 35;
const OCCURRENCES = SCHEDULES * 1440;

const SORT_COLUMNS: Record<TaskSortField, string[]> = {
  CreatedAtUtc: ['created_at'],
  LastExecutionUtc: ['last_execution_at'],
  ScheduledExecutionUtc: ['scheduled_at'],
  StartedAtUtc: ['started_at'],
  Status: ['status', 'created_at'],
  Type: ['type', 'created_at'],
  QueueName: ['queue', 'created_at'],
  ExecutionTimeMs: ['execution_time_ms'],
};

describe('a catch-up backlog is paged by the compact table’s indexes', () => {
  let dir: string;
  let storage: SqliteStorage;
  let store: MonitoringStore;
  const statements: string[][] = [];
  let recorded: { sql: string; params: readonly unknown[] }[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'compact-plans-'));
    storage = openSqliteStorage({ file: join(dir, 'tasks.db') });
    const clock = { now: T0 };
    const manager = createScheduleManager(scheduleInternals(createSqliteEngineStore(storage), () => clock.now, []));
    for (let i = 0; i < SCHEDULES; i++) {
      await manager.upsert({
        key: `minute-${i}`, type: i < 2 ? 'Backlog.Rare' : `Backlog.Kind${i % 3}`, queue: i < 2 ? 'rare' : `q${i % 4}`, cron: '* * * * *',
        misfire: { policy: 'ReplayAll', overflowCap: 2000 },
      });
    }
    const db = storage.db;
    // Task rows around the catch-up: finished, failed, queued, and one Pending created after it.
    insertTask(db, { type: 'Backlog.Kind1', queue: 'q1', status: 'Completed', created_at: T0 + 60 * MIN, started_at: T0 + 60 * MIN + 5, last_execution_at: T0 + 61 * MIN, execution_time_ms: 40, run_count: 1, last_outcome: 'Completed' });
    insertTask(db, { type: 'Backlog.Kind2', queue: 'q2', status: 'Failed', created_at: T0 + 90 * MIN, last_execution_at: T0 + 91 * MIN, execution_time_ms: 3, run_count: 1, last_outcome: 'Failed', exception: 'Error: down' });
    insertTask(db, { type: 'Backlog.Kind0', queue: 'q0', status: 'Queued', created_at: T0 + DAY - 5 * MIN });
    clock.now = T0 + DAY;
    expect((await manager.materializer.drain(clock.now)).written).toBe(OCCURRENCES);
    insertTask(db, { type: 'Backlog.Kind0', queue: 'q3', status: 'Pending', created_at: clock.now + 1, scheduled_at: clock.now + 60 * MIN });
    const inner = sqliteReadDb(db);
    const recording: ReadDb = {
      dialect: inner.dialect,
      features: inner.features,
      query: (sql, params = []) => {
        recorded.push({ sql, params });
        return inner.query(sql, params);
      },
    };
    store = createMonitoringStore(recording);
    expect(db.prepare('SELECT COUNT(*) FROM pending_occurrences').pluck().get()).toBe(OCCURRENCES);
  }, 120_000);

  afterAll(() => {
    storage?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Every row's id in the list's order, by a plain sort of every task row and compact row together (what the list answered before it read an index). */
  const sorted = new Map<string, string[]>();
  const reference = (q: TaskListQuery): string[] => {
    const key = JSON.stringify([q.statuses, q.queueName, q.taskType, q.sortBy, q.sortDescending]);
    let ids = sorted.get(key);
    if (ids === undefined) {
      const cols = 'id, status, type, queue, created_at, scheduled_at, started_at, last_execution_at, execution_time_ms, rowid AS ord';
      const conds: string[] = [];
      const params: unknown[] = [];
      if (q.statuses) conds.push(`status IN (${q.statuses.map(() => '?').join(', ')})`), params.push(...q.statuses);
      if (q.queueName !== undefined) conds.push('queue = ?'), params.push(q.queueName);
      if (q.taskType !== undefined) conds.push(`instr(lower(type), lower(?)) > 0`), params.push(q.taskType);
      const where = conds.length > 0 ? `WHERE ${conds.join(' AND ')}` : '';
      const dir = q.sortDescending ? 'DESC' : 'ASC';
      const order = [...SORT_COLUMNS[q.sortBy], 'ord'].map((c) => `${c} ${dir}`).join(', ');
      ids = storage.db
        .prepare(`SELECT id FROM (SELECT ${cols} FROM tasks ${where} UNION ALL SELECT ${cols} FROM pending_occurrence_tasks ${where}) ORDER BY ${order}`)
        .pluck()
        .all(...params, ...params) as string[];
      sorted.set(key, ids);
    }
    return ids.slice((q.page - 1) * q.pageSize, q.page * q.pageSize);
  };

  /** The plan of each statement the read issued that reads compact rows. */
  const plansOf = (reads: { sql: string; params: readonly unknown[] }[]) =>
    reads
      .filter((r) => /pending_occurrence/.test(r.sql))
      .map((r) => ({
        sql: r.sql,
        plan: (storage.db.prepare(`EXPLAIN QUERY PLAN ${r.sql}`).all(...r.params) as { detail: string }[]).map((p) => p.detail),
      }));

  const STATUS_FILTERS: (TaskStatus[] | undefined)[] = [undefined, ['Pending'], ['Pending', 'Queued'], ['Completed']];
  // A schedule's column: the small group (2 schedules, written first), a queue and a type of about a third.
  const GROUP_FILTERS: [string, Partial<TaskListQuery>, number[]][] = [
    ['queue rare', { queueName: 'rare' }, [1, 72, 144]],
    ['queue q1', { queueName: 'q1' }, [1, 200, 401]],
    ['type Rare', { taskType: 'Backlog.Rare' }, [1, 72, 144]],
    ['type Kind2', { taskType: 'kind2' }, [1, 300, 577]],
  ];
  const SORTS = Object.keys(SORT_COLUMNS) as TaskSortField[];
  const cases: [string, TaskListQuery][] = [];
  for (const statuses of STATUS_FILTERS) {
    for (const sortBy of SORTS) {
      for (const sortDescending of [true, false]) {
        for (const page of [1, 4, 1260, 2520, 2521]) {
          cases.push([`${statuses?.join('+') ?? 'all'} by ${sortBy} ${sortDescending ? 'desc' : 'asc'}, page ${page}`, { sortBy, sortDescending, page, pageSize: 20, statuses }]);
        }
      }
    }
  }
  for (const [name, filter, pages] of GROUP_FILTERS) {
    for (const sortBy of SORTS) {
      for (const sortDescending of [true, false]) {
        for (const page of pages) {
          cases.push([`${name} by ${sortBy} ${sortDescending ? 'desc' : 'asc'}, page ${page}`, { sortBy, sortDescending, page, pageSize: 20, ...filter }]);
        }
      }
    }
  }

  it.each(cases)('%s: the rows of a plain sort, no compact row scanned whole or sorted', async (_name, q) => {
    recorded = [];
    const page = await store.listTasks(q);
    statements.push(recorded.map((r) => r.sql));
    expect(page.items.map((t) => t.id)).toEqual(reference(q));
    expect(page.totalCount).toBe(sorted.get(JSON.stringify([q.statuses, q.queueName, q.taskType, q.sortBy, q.sortDescending]))!.length);
    for (const { sql, plan } of plansOf(recorded)) {
      const detail = `${sql}\n${plan.join('\n')}`;
      if (/^SELECT (p\.)?seq (AS seq )?FROM (pending_occurrence_tasks|pending_occurrences p) /.test(sql)) {
        // A walk of the page's seqs: read in the list's order (an index, or the table's own seq
        // order) and stopped at the LIMIT; a TEMP B-TREE would be a sort of every matching row.
        expect(plan.join('\n'), detail).not.toMatch(/TEMP B-TREE/);
      } else if (/^SELECT w\.seq/.test(sql)) {
        // A bounded walk: the list's order read to its LIMIT (an index, or seq's own order).
        expect(plan.filter((d) => /^SCAN p/.test(d)).every((d) => d === 'SCAN p' || /USING (COVERING )?INDEX ix_pending_occurrences_(created|due)/.test(d)), detail).toBe(true);
      } else if (/^SELECT m\.seq AS seq FROM pending_occurrences m /.test(sql)) {
        // A few schedules in due order or seq order: each of their rows by the slot index, once, then one sort.
        expect(plan.filter((d) => /^SCAN m\b/.test(d)), detail).toEqual([]);
        expect(plan.filter((d) => /^SEARCH m USING (COVERING )?INDEX ux_pending_occurrences_slot \(schedule_ref=\?\)/.test(d)), detail).toHaveLength(1);
      } else if (/CROSS JOIN pending_occurrences AS x/.test(sql)) {
        // A merge: each schedule's first rows by an index of that schedule's rows.
        expect(plan.filter((d) => /^SCAN (x|q)\b/.test(d)), detail).toEqual([]);
        expect(plan.filter((d) => /^SEARCH q USING (COVERING )?INDEX (ix_pending_occurrences_schedule_|ux_pending_occurrences_slot)/.test(d)), detail).toHaveLength(1);
      } else {
        // Every other statement reads compact rows by key: a bare "SCAN p" or "SCAN q" reads every one.
        expect(plan.filter((d) => /^SCAN (p|q)$/.test(d)), detail).toEqual([]);
      }
    }
  });

  it('a small group read newest first merges its schedules’ rows from their own index', async () => {
    recorded = [];
    await store.listTasks({ sortBy: 'QueueName', sortDescending: true, page: 1, pageSize: 20, statuses: ['Pending'] });
    const merges = plansOf(recorded).filter((p) => /CROSS JOIN pending_occurrences AS x/.test(p.sql));
    expect(merges).toHaveLength(1);
    expect(merges[0]!.plan).toContain('SEARCH q USING COVERING INDEX ix_pending_occurrences_schedule_created (schedule_ref=?)');
  });

  it('a small group by due time reads its schedules’ rows once by the slot index and sorts them in one statement', async () => {
    for (const sortDescending of [true, false]) {
      recorded = [];
      await store.listTasks({ sortBy: 'ScheduledExecutionUtc', sortDescending, page: 1, pageSize: 20, queueName: 'rare' });
      const reads = plansOf(recorded).filter((p) => /FROM pending_occurrences (m|p|q|AS x)\b|CROSS JOIN pending_occurrences/.test(p.sql) && !/MIN\(seq\)/.test(p.sql));
      expect(reads.map((r) => /^SELECT m\.seq AS seq FROM pending_occurrences m INDEXED BY ux_pending_occurrences_slot /.test(r.sql))).toEqual([true]);
      expect(reads[0]!.plan).toContain('SEARCH m USING INDEX ux_pending_occurrences_slot (schedule_ref=?)');
    }
  });

  it('the default list and the Pending filter read compact rows through the creation-time index', () => {
    recorded = [];
    return store.listTasks({ sortBy: 'CreatedAtUtc', sortDescending: true, page: 1, pageSize: 20, statuses: ['Pending'] }).then(() => {
      const plans = plansOf(recorded).filter((p) => /^SELECT (p\.)?seq (AS seq )?FROM/.test(p.sql));
      expect(plans).toHaveLength(1);
      expect(plans[0]!.plan.join('\n')).toMatch(/SCAN p USING (COVERING )?INDEX ix_pending_occurrences_created/);
    });
  });

  /** Pages deep in the list, where reading the rows before them costs in proportion to the page's position. */
  const DEEP: [string, TaskListQuery][] = [
    ['by Type desc, page 1260', { sortBy: 'Type', sortDescending: true, page: 1260, pageSize: 20 }],
    ['by Type asc, page 1260', { sortBy: 'Type', sortDescending: false, page: 1260, pageSize: 20 }],
    ['Pending by QueueName desc, page 1260', { sortBy: 'QueueName', sortDescending: true, page: 1260, pageSize: 20, statuses: ['Pending'] }],
    ['by CreatedAtUtc desc, page 1260', { sortBy: 'CreatedAtUtc', sortDescending: true, page: 1260, pageSize: 20 }],
    ['Pending by LastExecutionUtc asc, page 1260', { sortBy: 'LastExecutionUtc', sortDescending: false, page: 1260, pageSize: 20, statuses: ['Pending'] }],
    ['queue q1 by CreatedAtUtc desc, page 200', { sortBy: 'CreatedAtUtc', sortDescending: true, page: 200, pageSize: 20, queueName: 'q1' }],
    ['type Kind2 by Status asc, page 300', { sortBy: 'Status', sortDescending: false, page: 300, pageSize: 20, taskType: 'kind2' }],
  ];
  /** A statement that reads compact rows up to a page's position: a walk of an index (OFFSET), a merge of schedules' first rows, a count of a group's rows. */
  const WALK_OR_COUNT = /FROM pending_occurrences p\b[\s\S]*OFFSET|^SELECT w\.seq|CROSS JOIN pending_occurrences AS x|SELECT COUNT\(\*\) AS n FROM pending_occurrences/;
  /** A read of one block of seqs (at most 4,096 index entries), the only compact rows a deep page reads. */
  const BLOCK_READ = /p\.seq BETWEEN \? AND \?/;
  const readsPast = (reads: { sql: string }[]) => reads.filter((r) => WALK_OR_COUNT.test(r.sql) && !BLOCK_READ.test(r.sql)).map((r) => r.sql);

  it.each(DEEP)('%s: placed by the counts of blocks of seqs, no compact row before it read', async (_name, q) => {
    recorded = [];
    const page = await store.listTasks(q);
    expect(page.items.map((t) => t.id)).toEqual(reference(q));
    expect(readsPast(recorded)).toEqual([]);
    expect(recorded.filter((r) => BLOCK_READ.test(r.sql)).length).toBeGreaterThan(0);
  });

  it('rows taken from the middle of a schedule’s rows (a cancel turns one into a task row): the counts follow, and every deep page stays that of a plain sort without reading the rows before it', async () => {
    const ids = storage.db
      .prepare(`SELECT p.id FROM pending_occurrences p JOIN occurrence_schedules r ON r.ref = p.schedule_ref
                 WHERE r.schedule_id = (SELECT id FROM tasks WHERE type = 'Backlog.Kind2' AND is_recurring = 1 LIMIT 1) AND p.seq % 3 = 0 ORDER BY p.seq LIMIT 400 OFFSET 100`)
      .pluck()
      .all() as string[];
    expect(ids.length).toBeGreaterThan(100);
    expect(await spillCompact(storage, { ids })).toBe(ids.length);
    const blocks = storage.db.prepare('SELECT SUM(n) FROM compact_seq_blocks').pluck().get();
    expect(blocks).toBe(storage.db.prepare('SELECT COUNT(*) FROM pending_occurrences').pluck().get());
    sorted.clear();
    for (const [name, q] of DEEP) {
      recorded = [];
      const page = await store.listTasks(q);
      expect(page.items.map((t) => t.id), name).toEqual(reference(q));
      expect(page.totalCount, name).toBe(sorted.get(JSON.stringify([q.statuses, q.queueName, q.taskType, q.sortBy, q.sortDescending]))!.length);
      expect(readsPast(recorded), name).toEqual([]);
    }
  });
});
