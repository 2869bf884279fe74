import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createScheduleManager, type DurableScheduleManager } from '../../../server/src/engine/schedules/index.js';
import { createSqliteEngineStore } from '../../../server/src/storage/sqlite/createSqliteEngineStore.js';
import { openSqliteStorage } from '../../../server/src/storage/sqlite/openSqliteStorage.js';
import { taskWriter } from '../../../server/src/storage/sqlite/readModels/taskWriter.js';
import { spillPendingOccurrences } from '../../../server/src/storage/sqlite/schedules/spillPendingOccurrences.js';
import type { SqliteStorage } from '../../../server/src/storage/Storage.js';
import { CATCH_UP_DOWN, CATCH_UP_T0, upsertCatchUpSchedules } from '../../fixtures/server/catchUpSchedules.js';
import { scheduleInternals } from '../../fixtures/scheduleInternals.js';

// A catch-up written compact (migration 15) and then turned into task rows must leave exactly
// what the same catch-up written as task rows leaves: rows, audits, search rows, read models.

const T0 = CATCH_UP_T0;
const DOWN = CATCH_UP_DOWN;
const dir = mkdtempSync(join(tmpdir(), 'compact-occ-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Row = Record<string, unknown>;

/** A store with the schedules, caught up after DOWN with occurrences written compact from `compactFrom` rows a transaction. */
async function caughtUp(name: string, compactFrom: number): Promise<{ storage: SqliteStorage; written: number }> {
  const storage = openSqliteStorage({ file: join(dir, `${name}.db`) });
  const clock = { now: T0 };
  const manager = createScheduleManager(scheduleInternals(createSqliteEngineStore(storage), () => clock.now, []), { compactFrom });
  await upsertCatchUpSchedules(manager);
  clock.now = T0 + DOWN;
  const { written } = await manager.materializer.drain(clock.now);
  return { storage, written };
}

/** Everything a catch-up leaves, named by schedule key and slot rather than by ids. */
function contents(db: Database): Record<string, unknown> {
  const all = (sql: string) => db.prepare(sql).all() as Row[];
  const occurrence = `(SELECT task_key FROM tasks s WHERE s.id = t.parent_task_id) AS schedule`;
  return {
    occurrences: all(`SELECT ${occurrence}, type, handler, request, queue, status, task_key, audit_level, created_at, scheduled_at,
      started_at, last_execution_at, run_count, attempt, retry_policy, timeout_ms, is_recurring, occurrence_mode, misfire_policy,
      time_zone_id, schedule_version, nominal_slot_at, run_number, misfire_kind, missed_from, missed_through, missed_count,
      missed_count_is_exact, is_occurrence, traceparent, tracestate
      FROM tasks t WHERE parent_task_id IS NOT NULL ORDER BY schedule, nominal_slot_at`),
    audits: all(`SELECT ${occurrence}, t.nominal_slot_at, a.updated_at, a.new_status FROM status_audit a JOIN tasks t ON t.id = a.task_id
      WHERE t.parent_task_id IS NOT NULL ORDER BY schedule, t.nominal_slot_at, a.id`),
    searchRows: all(`SELECT ${occurrence}, t.nominal_slot_at, r.created_at, r.queue, r.type, r.is_recurring, r.is_occurrence, r.status
      FROM task_search_rows r JOIN tasks t ON t.id = r.task_id WHERE t.parent_task_id IS NOT NULL ORDER BY schedule, t.nominal_slot_at`),
    acme: db.prepare(`SELECT COUNT(*) FROM task_request_fts WHERE task_request_fts MATCH '"ACME-42"'`).pluck().get(),
    statTasks: all('SELECT queue, type, status, is_recurring, is_occurrence, n FROM stat_tasks WHERE n <> 0 ORDER BY 1, 2, 3, 4, 5'),
    createdHour: all('SELECT hour, type, status, n FROM stat_created_hour WHERE n <> 0 ORDER BY 1, 2, 3'),
    typeHandlers: all('SELECT type, handler FROM monitor_type_handlers ORDER BY 1, 2'),
  };
}

describe('compact Pending occurrences (SQLite)', () => {
  it('a catch-up writes one compact row per occurrence, counted as Pending occurrences, and no task row, audit or search row', async () => {
    const { storage, written } = await caughtUp('counted', 1000);
    const db = storage.db;
    expect(written).toBe(1800 + 360 + 120 + 30);
    // 1,800 and 360 + 120 + 30 in transactions of up to 20,000: both at least 1,000 rows.
    expect(db.prepare('SELECT COUNT(*) FROM pending_occurrences').pluck().get()).toBe(2310);
    expect(db.prepare('SELECT COUNT(*) FROM tasks WHERE parent_task_id IS NOT NULL').pluck().get()).toBe(0);
    expect(db.prepare(`SELECT COUNT(*) FROM status_audit a JOIN pending_occurrences p ON p.id = a.task_id`).pluck().get()).toBe(0);
    expect(db.prepare(`SELECT SUM(n) FROM stat_tasks WHERE is_occurrence = 1 AND status = 'Pending'`).pluck().get()).toBe(2310);
    // Each one stands for the task row it will be: the view shows it so.
    expect(db.prepare(`SELECT type, queue, status, parent_task_id IS NOT NULL AS occ, occurrence_mode, request FROM pending_occurrence_tasks
      WHERE nominal_slot_at = (SELECT MIN(nominal_slot_at) FROM pending_occurrence_tasks WHERE type = 'Ops.Probe') AND type = 'Ops.Probe'`).get())
      .toEqual({ type: 'Ops.Probe', queue: 'ops', status: 'Pending', occ: 1, occurrence_mode: 'Durable', request: '{"host":"db-7"}' });
    storage.close();
  });

  it('a steady tick writes its on-time slots as task rows, however many schedules it serves', async () => {
    const storage = openSqliteStorage({ file: join(dir, 'steady.db') });
    const clock = { now: T0 };
    const manager = createScheduleManager(scheduleInternals(createSqliteEngineStore(storage), () => clock.now, []), { compactFrom: 2 });
    for (let i = 0; i < 5; i++) await manager.upsert({ key: `minute-${i}`, type: 'Steady.Minute', cron: '* * * * *', misfire: { policy: 'ReplayAll', overflowCap: 100 } });
    // One second before the next minute slot: inside the lookahead, on time.
    clock.now = Math.ceil(T0 / 60_000) * 60_000 - 1000;
    expect((await manager.materializer.drain(clock.now)).written).toBe(5);
    const db = storage.db;
    expect(db.prepare(`SELECT COUNT(*) FROM tasks WHERE parent_task_id IS NOT NULL AND misfire_kind = 'OnTime'`).pluck().get()).toBe(5);
    expect(db.prepare('SELECT COUNT(*) FROM pending_occurrences').pluck().get()).toBe(0);
    // Two minutes down: two missed slots each, 10 ≥ compactFrom, written compact with the slot on time.
    clock.now += 3 * 60_000;
    expect((await manager.materializer.drain(clock.now)).written).toBe(15);
    expect(db.prepare(`SELECT misfire_kind, COUNT(*) AS n FROM pending_occurrence_tasks GROUP BY 1 ORDER BY 1`).all())
      .toEqual([{ misfire_kind: 'CatchUp', n: 10 }, { misfire_kind: 'OnTime', n: 5 }]);
    storage.close();
  });

  it('turned into task rows, a compact catch-up leaves what the same catch-up written as task rows leaves', async () => {
    const whole = await caughtUp('whole', Number.POSITIVE_INFINITY);
    const compact = await caughtUp('compact', 1);
    expect(compact.written).toBe(whole.written);
    expect(whole.storage.db.prepare('SELECT COUNT(*) FROM pending_occurrences').pluck().get()).toBe(0);
    // In three uneven batches, as promotion takes them when due, oldest due first.
    const write = taskWriter(compact.storage.db);
    const batches = [700, 1000, 5000].map((limit) =>
      write((deltas) => spillPendingOccurrences(compact.storage.db, deltas, { due: Number.MAX_SAFE_INTEGER }, limit)));
    expect(batches).toEqual([700, 1000, 610]);
    expect(compact.storage.db.prepare('SELECT COUNT(*) FROM pending_occurrences').pluck().get()).toBe(0);
    expect(contents(compact.storage.db)).toEqual(contents(whole.storage.db));
    whole.storage.close();
    compact.storage.close();
  });

  it('a compact row whose slot already has a task row is dropped and uncounted', async () => {
    const { storage } = await caughtUp('dropped', 1);
    const db = storage.db;
    // One slot written whole as well (as a second engine with an older cursor might have).
    const one = db.prepare('SELECT * FROM pending_occurrence_tasks ORDER BY seq LIMIT 1').get() as Row;
    db.prepare(`INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at, scheduled_at, occurrence_mode,
      parent_task_id, nominal_slot_at, run_number, schedule_version) VALUES ('whole-1', ?, ?, ?, ?, 'Pending', ?, ?, ?, 'Durable', ?, ?, ?, ?)`)
      .run(one['type'], one['handler'], one['request'], one['queue'], one['audit_level'], one['created_at'], one['scheduled_at'],
        one['parent_task_id'], one['nominal_slot_at'], one['run_number'], one['schedule_version']);
    const before = db.prepare(`SELECT SUM(n) FROM stat_tasks WHERE is_occurrence = 1`).pluck().get() as number;
    const written = taskWriter(db)((deltas) => spillPendingOccurrences(db, deltas, { ids: [one['id'] as string] }));
    expect(written).toBe(0);
    expect(db.prepare('SELECT COUNT(*) FROM pending_occurrences WHERE id = ?').pluck().get(one['id'])).toBe(0);
    expect(db.prepare(`SELECT SUM(n) FROM stat_tasks WHERE is_occurrence = 1`).pluck().get()).toBe(before - 1);
    storage.close();
  });
});
