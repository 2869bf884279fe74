import { afterEach, describe, expect, it } from 'vitest';
import { createScheduleManager } from '../../../server/src/engine/schedules/index.js';
import { CATCH_UP_DOWN, CATCH_UP_T0, upsertCatchUpSchedules } from '../../fixtures/server/catchUpSchedules.js';
import { spillCompact } from '../../fixtures/server/spillCompact.js';
import { openStoreUnderTest, type StoreUnderTest } from '../../fixtures/server/storeUnderTest.js';
import { scheduleInternals } from '../../fixtures/scheduleInternals.js';

// A catch-up written compact (SQLite migration 15, PostgreSQL 19) and then turned into task rows
// must leave exactly what the same catch-up written as task rows leaves: rows, audits, search
// rows (words), read models. On the backend under test.

const T0 = CATCH_UP_T0;
const DOWN = CATCH_UP_DOWN;
const opened: StoreUnderTest[] = [];
afterEach(async () => {
  for (const sut of opened.splice(0)) await sut.destroy();
});

type Row = Record<string, unknown>;

/** A fresh store of the backend under test (destroyed after the test). */
function freshStore(): StoreUnderTest {
  const sut = openStoreUnderTest();
  opened.push(sut);
  return sut;
}

/** A store with the schedules, caught up after DOWN with occurrences written compact from `compactFrom` rows a transaction. */
async function caughtUp(compactFrom: number): Promise<{ sut: StoreUnderTest; written: number }> {
  const sut = freshStore();
  const clock = { now: T0 };
  const manager = createScheduleManager(scheduleInternals(sut.store, () => clock.now, []), { compactFrom });
  await upsertCatchUpSchedules(manager);
  clock.now = T0 + DOWN;
  const { written } = await manager.materializer.drain(clock.now);
  return { sut, written };
}

const count = async (sut: StoreUnderTest, sql: string, ...params: unknown[]) => Number(await sut.probe.value(sql, ...params));
/** The relation of a read model: PostgreSQL's view folds the pending deltas in. */
const model = (sut: StoreUnderTest, name: string) => (sut.backend === 'postgres' ? `${name}_v` : name);

/** Everything a catch-up leaves, named by schedule key and slot rather than by ids. */
async function contents(sut: StoreUnderTest): Promise<Record<string, unknown>> {
  const all = (sql: string) => sut.probe.rows<Row>(sql);
  const occurrence = `(SELECT task_key FROM tasks s WHERE s.id = t.parent_task_id) AS schedule`;
  const postgres = sut.backend === 'postgres';
  return {
    occurrences: await all(`SELECT ${occurrence}, type, handler, request, queue, status, task_key, audit_level, created_at, scheduled_at,
      started_at, last_execution_at, run_count, attempt, retry_policy, timeout_ms, is_recurring, occurrence_mode, misfire_policy,
      time_zone_id, schedule_version, nominal_slot_at, run_number, misfire_kind, missed_from, missed_through, missed_count,
      missed_count_is_exact, CASE WHEN parent_task_id IS NOT NULL THEN 1 ELSE 0 END AS is_occurrence, traceparent, tracestate
      FROM tasks t WHERE parent_task_id IS NOT NULL ORDER BY schedule, nominal_slot_at`),
    audits: await all(`SELECT ${occurrence}, t.nominal_slot_at, a.updated_at, a.new_status FROM status_audit a JOIN tasks t ON t.id = a.task_id
      WHERE t.parent_task_id IS NOT NULL ORDER BY schedule, t.nominal_slot_at, a.id`),
    searchRows: await all(postgres
      ? `SELECT ${occurrence}, t.nominal_slot_at, CAST(r.words AS TEXT) AS words FROM task_search r JOIN tasks t ON t.seq = r.seq
          WHERE t.parent_task_id IS NOT NULL ORDER BY schedule, t.nominal_slot_at`
      : `SELECT ${occurrence}, t.nominal_slot_at, r.created_at, r.queue, r.type, r.is_recurring, r.is_occurrence, r.status
          FROM task_search_rows r JOIN tasks t ON t.id = r.task_id WHERE t.parent_task_id IS NOT NULL ORDER BY schedule, t.nominal_slot_at`),
    acme: await count(sut, postgres
      ? `SELECT COUNT(*) FROM task_search WHERE words @@ phraseto_tsquery('simple', 'acme 42')`
      : `SELECT COUNT(*) FROM task_request_fts WHERE task_request_fts MATCH '"ACME-42"'`),
    statTasks: await all(`SELECT queue, type, status, is_recurring, is_occurrence, SUM(n) AS n FROM ${model(sut, 'stat_tasks')}
      GROUP BY 1, 2, 3, 4, 5 HAVING SUM(n) <> 0 ORDER BY 1, 2, 3, 4, 5`),
    createdHour: await all(`SELECT hour, type, status, SUM(n) AS n FROM ${model(sut, 'stat_created_hour')} GROUP BY 1, 2, 3 HAVING SUM(n) <> 0 ORDER BY 1, 2, 3`),
    typeHandlers: await all('SELECT type, handler FROM monitor_type_handlers ORDER BY 1, 2'),
  };
}

describe('compact Pending occurrences', () => {
  it('a catch-up writes one compact row per occurrence, counted as Pending occurrences, and no task row, audit or search row', async () => {
    const { sut, written } = await caughtUp(1000);
    expect(written).toBe(1800 + 360 + 120 + 30);
    // 1,800 and 360 + 120 + 30 in transactions of up to 20,000: both at least 1,000 rows.
    expect(await count(sut, 'SELECT COUNT(*) FROM pending_occurrences')).toBe(2310);
    expect(await count(sut, 'SELECT COUNT(*) FROM tasks WHERE parent_task_id IS NOT NULL')).toBe(0);
    expect(await count(sut, `SELECT COUNT(*) FROM status_audit a JOIN pending_occurrences p ON p.id = a.task_id`)).toBe(0);
    expect(await count(sut, `SELECT SUM(n) FROM ${model(sut, 'stat_tasks')} WHERE is_occurrence = 1 AND status = 'Pending'`)).toBe(2310);
    // Each one stands for the task row it will be: the view shows it so.
    expect(await sut.probe.row(`SELECT type, queue, status, CASE WHEN parent_task_id IS NOT NULL THEN 1 ELSE 0 END AS occ, occurrence_mode, request
      FROM pending_occurrence_tasks
      WHERE nominal_slot_at = (SELECT MIN(nominal_slot_at) FROM pending_occurrence_tasks WHERE type = 'Ops.Probe') AND type = 'Ops.Probe'`))
      .toEqual({ type: 'Ops.Probe', queue: 'ops', status: 'Pending', occ: 1, occurrence_mode: 'Durable', request: '{"host":"db-7"}' });
  });

  it('a steady tick writes its on-time slots as task rows, however many schedules it serves', async () => {
    const sut = freshStore();
    const clock = { now: T0 };
    const manager = createScheduleManager(scheduleInternals(sut.store, () => clock.now, []), { compactFrom: 2 });
    for (let i = 0; i < 5; i++) await manager.upsert({ key: `minute-${i}`, type: 'Steady.Minute', cron: '* * * * *', misfire: { policy: 'ReplayAll', overflowCap: 100 } });
    // One second before the next minute slot: inside the lookahead, on time.
    clock.now = Math.ceil(T0 / 60_000) * 60_000 - 1000;
    expect((await manager.materializer.drain(clock.now)).written).toBe(5);
    expect(await count(sut, `SELECT COUNT(*) FROM tasks WHERE parent_task_id IS NOT NULL AND misfire_kind = 'OnTime'`)).toBe(5);
    expect(await count(sut, 'SELECT COUNT(*) FROM pending_occurrences')).toBe(0);
    // Two minutes down: two missed slots each, 10 ≥ compactFrom, written compact with the slot on time.
    clock.now += 3 * 60_000;
    expect((await manager.materializer.drain(clock.now)).written).toBe(15);
    expect(await sut.probe.rows(`SELECT misfire_kind, COUNT(*) AS n FROM pending_occurrence_tasks GROUP BY 1 ORDER BY 1`))
      .toEqual([{ misfire_kind: 'CatchUp', n: 10 }, { misfire_kind: 'OnTime', n: 5 }]);
  });

  it('turned into task rows, a compact catch-up leaves what the same catch-up written as task rows leaves', async () => {
    const whole = await caughtUp(Number.POSITIVE_INFINITY);
    const compact = await caughtUp(1);
    expect(compact.written).toBe(whole.written);
    expect(await count(whole.sut, 'SELECT COUNT(*) FROM pending_occurrences')).toBe(0);
    expect(await count(compact.sut, 'SELECT COUNT(*) FROM pending_occurrences')).toBe(compact.written);
    // In three uneven batches, as promotion takes them when due, oldest due first.
    const storage = await compact.sut.storage();
    const batches: number[] = [];
    for (const limit of [700, 1000, 5000]) batches.push(await spillCompact(storage, { due: Number.MAX_SAFE_INTEGER }, limit));
    expect(batches).toEqual([700, 1000, 610]);
    expect(await count(compact.sut, 'SELECT COUNT(*) FROM pending_occurrences')).toBe(0);
    expect(await contents(compact.sut)).toEqual(await contents(whole.sut));
  });

  it('a catch-up over slots its schedule already holds compact writes none of them again, and fails nothing', async () => {
    const sut = freshStore();
    const clock = { now: T0 };
    const manager = createScheduleManager(scheduleInternals(sut.store, () => clock.now, []), { compactFrom: 1 });
    await upsertCatchUpSchedules(manager);
    clock.now = T0 + DOWN;
    await manager.materializer.drain(clock.now);
    const rows = await count(sut, 'SELECT COUNT(*) FROM pending_occurrences');
    const occurrences = () => count(sut, `SELECT SUM(n) FROM ${model(sut, 'stat_tasks')} WHERE is_occurrence = 1`);
    const counted = await occurrences();
    // The schedules' cursors back where they were before the catch-up (as an engine that read
    // them before the catch-up committed would plan): the same slots are planned again.
    await sut.probe.run(`UPDATE tasks SET cursor_at = ?, scheduled_at = ? WHERE parent_task_id IS NULL AND is_recurring = 1`, T0, T0);
    const again = await manager.materializer.drain(clock.now);
    expect(again.written).toBe(0);
    expect(await count(sut, 'SELECT COUNT(*) FROM pending_occurrences')).toBe(rows);
    expect(await occurrences()).toBe(counted);
  });

  it('a compact row whose slot already has a task row is dropped and uncounted', async () => {
    const { sut } = await caughtUp(1);
    // One slot written whole as well (as a second engine with an older cursor might have).
    const one = (await sut.probe.row<Row>('SELECT * FROM pending_occurrence_tasks ORDER BY seq LIMIT 1'))!;
    await sut.probe.run(`INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at, scheduled_at, occurrence_mode,
      parent_task_id, nominal_slot_at, run_number, schedule_version) VALUES ('whole-1', ?, ?, ?, ?, 'Pending', ?, ?, ?, 'Durable', ?, ?, ?, ?)`,
      one['type'], one['handler'], one['request'], one['queue'], one['audit_level'], one['created_at'], one['scheduled_at'],
      one['parent_task_id'], one['nominal_slot_at'], one['run_number'], one['schedule_version']);
    const occurrences = () => count(sut, `SELECT SUM(n) FROM ${model(sut, 'stat_tasks')} WHERE is_occurrence = 1`);
    const before = await occurrences();
    expect(await spillCompact(await sut.storage(), { ids: [one['id'] as string] })).toBe(0);
    expect(await count(sut, 'SELECT COUNT(*) FROM pending_occurrences WHERE id = ?', one['id'])).toBe(0);
    expect(await occurrences()).toBe(before - 1);
  });
});
