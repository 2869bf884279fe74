import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../../server/src/index.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { createPostgresScheduleOperations } from '../../../server/src/storage/postgres/management/createPostgresScheduleOperations.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { waitFor } from '../../fixtures/waitFor.js';

// A schedule cancel (or a definition change) on PostgreSQL skips the occurrences another
// transaction holds at that instant (an engine's claim or promotion, a few milliseconds), rather
// than wait for them while holding the rest. Those it must still cancel once their holder is done:
// an occurrence claimed at the instant of the cancel must not run after the cancel answered. Here
// the holder is a transaction of the test, which keeps one waiting occurrence locked for 300 ms.

const NOW = Date.parse('2026-03-02T10:00:30.000Z');
const HOUR_AGO = NOW - 3_600_000;
const OPEN = `status IN ('Pending', 'Queued', 'WaitingQueue')`;

let database: TestDatabase;
let storage: PostgresStorage;
const stores: PostgresEngineStore[] = [];
const engines: Engine[] = [];

beforeAll(async () => {
  database = await createTestDatabase('svc_cancelheld');
  storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 4, rollupIntervalMs: 0 });
}, 60_000);
afterEach(async () => {
  for (const e of engines.splice(0)) await e.stop({ graceMs: 0 });
  for (const s of stores.splice(0)) await s.dispose();
});
afterAll(async () => {
  await storage?.close();
  await database?.drop();
});

function engineAt(clock: number): Engine {
  const store = createPostgresEngineStore(storage);
  stores.push(store);
  const engine = createEngine({ store, clock: () => clock, pollIntervalMs: 20, onError: () => undefined });
  engines.push(engine);
  return engine;
}

/** A schedule created an hour ago whose catch-up has written its occurrences as task rows; no engine here handles them. */
async function scheduleWithOccurrences(key: string): Promise<{ engine: Engine; scheduleId: string }> {
  const scheduleId = await engineAt(HOUR_AGO).schedules.upsert({
    key, type: 'Held.Occurrence', every: '10s', misfire: { policy: 'ReplayAll', windowMs: 30 * 60_000, overflowCap: 1000 },
  });
  const engine = engineAt(NOW);
  await engine.start();
  await waitFor(async () => Number((await storage.query(`SELECT COUNT(*) AS n FROM tasks WHERE parent_task_id = $1 AND ${OPEN}`, [scheduleId])).rows[0].n) >= 100, 20_000, 'the catch-up occurrences');
  return { engine, scheduleId };
}

/** Locks one waiting occurrence of `scheduleId` in a transaction of its own, released after `ms`. */
async function holdOneOccurrence(scheduleId: string, ms: number): Promise<{ id: string; released: Promise<void> }> {
  const c = await storage.pool.connect();
  await c.query('BEGIN');
  const { rows } = await c.query<{ id: string }>(`SELECT id FROM tasks WHERE parent_task_id = $1 AND ${OPEN} ORDER BY seq LIMIT 1 FOR UPDATE`, [scheduleId]);
  const released = new Promise<void>((resolve) => setTimeout(resolve, ms)).then(async () => {
    await c.query('COMMIT');
    c.release();
  });
  return { id: rows[0]!.id, released };
}

const statusOf = async (id: string) => (await storage.query<{ status: string }>('SELECT status FROM tasks WHERE id = $1', [id])).rows[0]!.status;
const openCount = async (scheduleId: string) => Number((await storage.query(`SELECT COUNT(*) AS n FROM tasks WHERE parent_task_id = $1 AND ${OPEN}`, [scheduleId])).rows[0].n);

describe('PostgreSQL: a schedule cancel also cancels the occurrences another transaction held at that instant', () => {
  it('engine.schedules.cancel(key): every waiting occurrence is Cancelled when it answers, the held one included', async () => {
    const { engine, scheduleId } = await scheduleWithOccurrences('held-engine');
    const held = await holdOneOccurrence(scheduleId, 300);
    const result = await engine.schedules.cancel('held-engine');
    await held.released;
    expect(result).toMatchObject({ status: 'Succeeded' });
    expect(await statusOf(held.id)).toBe('Cancelled');
    expect(await openCount(scheduleId)).toBe(0);
  }, 60_000);

  it('the storage operation (a process without an engine, the REST API): the same', async () => {
    const { scheduleId } = await scheduleWithOccurrences('held-storage');
    const held = await holdOneOccurrence(scheduleId, 300);
    const before = await openCount(scheduleId);
    const result = await createPostgresScheduleOperations(storage, () => NOW).cancel('held-storage');
    await held.released;
    expect(result).toMatchObject({ status: 'Succeeded', message: `Schedule cancelled; ${before} pending occurrence(s) cancelled, running ones finish.` });
    expect(await statusOf(held.id)).toBe('Cancelled');
    expect(await openCount(scheduleId)).toBe(0);
  }, 60_000);

  it('a definition change cancels the old slots the new definition does not produce, the held one included', async () => {
    const { engine, scheduleId } = await scheduleWithOccurrences('held-change');
    const held = await holdOneOccurrence(scheduleId, 300);
    // Slots of 7 s: the 10 s slots waiting (none of them a multiple of 70 s after the first) are cancelled.
    await engine.schedules.upsert({ key: 'held-change', type: 'Held.Occurrence', every: '7s', misfire: { policy: 'ReplayAll', windowMs: 30 * 60_000, overflowCap: 1000 } });
    await held.released;
    // The rule of a definition change: an old slot stays only when the new definition produces it.
    const def = JSON.parse((await storage.query<{ d: string }>('SELECT schedule_definition AS d FROM tasks WHERE id = $1', [scheduleId])).rows[0]!.d) as { anchorMs: number; everyMs: number };
    const produced = (slot: number) => slot >= def.anchorMs && (slot - def.anchorMs) % def.everyMs === 0;
    const old = (await storage.query<{ id: string; slot: string; status: string }>(
      `SELECT id, nominal_slot_at AS slot, status FROM tasks WHERE parent_task_id = $1 AND schedule_version < (SELECT schedule_version FROM tasks WHERE id = $1)`, [scheduleId],
    )).rows;
    expect(old.some((o) => o.id === held.id)).toBe(true);
    const wrong = old.filter((o) => o.status !== 'Completed' && (o.status === 'Cancelled') === produced(Number(o.slot)));
    expect(wrong).toEqual([]);
  }, 60_000);
});
