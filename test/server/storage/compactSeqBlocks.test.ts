// @backends sqlite — opens its own PostgreSQL database too (both backends' block counts in one file).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createScheduleManager, type DurableScheduleManager } from '../../../server/src/engine/schedules/index.js';
import type { NewOccurrence } from '../../../server/src/storage/EngineStore.js';
import { createPostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createSqliteEngineStore } from '../../../server/src/storage/sqlite/createSqliteEngineStore.js';
import { openSqliteStorage } from '../../../server/src/storage/sqlite/openSqliteStorage.js';
import { insertCompactOccurrences } from '../../../server/src/storage/sqlite/schedules/insertCompactOccurrences.js';
import type { SqliteStorage } from '../../../server/src/storage/Storage.js';
import { createTestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { scheduleInternals } from '../../fixtures/scheduleInternals.js';
import { spillCompact } from '../../fixtures/server/spillCompact.js';

// The compact rows' counts per block of 4,096 seqs (compact_seq_blocks) are what a recount of the
// rows gives after each way rows come and go: a catch-up (whose writer counts its own rows' blocks
// on SQLite, the insert trigger stepping aside for it), a cancelled schedule, a spill of chosen
// rows, a promotion of the due ones, a row written by another insert.

const MIN = 60_000;
const T0 = Date.parse('2026-04-06T10:00:30Z');
const DOWN = 24 * 60 * MIN;
/** 3 minute schedules × 24 h: 4,320 rows, spanning two blocks of seqs. */
const ROWS = 3 * 1440;

const RECOUNT = 'SELECT schedule_ref, created_at, seq >> 12 AS block, COUNT(*) AS n FROM pending_occurrences GROUP BY 1, 2, 3';
const KEPT = 'SELECT schedule_ref, created_at, block, n FROM compact_seq_blocks';
/** Blocks kept but not recounted, and recounted but not kept (each row: schedule_ref, created_at, block, n). */
const APART = `SELECT 'kept' AS side, * FROM (${KEPT} EXCEPT ${RECOUNT}) a UNION ALL SELECT 'recount', * FROM (${RECOUNT} EXCEPT ${KEPT}) b`;

interface Backend {
  name: 'sqlite' | 'postgres';
  storage: SqliteStorage | PostgresStorage;
  manager: DurableScheduleManager;
  clock: { now: number };
  query: (sql: string) => Promise<Record<string, unknown>[]>;
  close: () => Promise<void>;
}

const managerOf = (store: Parameters<typeof scheduleInternals>[0], clock: { now: number }) =>
  createScheduleManager(scheduleInternals(store, () => clock.now, []), { compactFrom: 10, rowsPerTransaction: 700 });

async function sqliteBackend(): Promise<Backend> {
  const dir = mkdtempSync(join(tmpdir(), 'compact-blocks-'));
  const storage = openSqliteStorage({ file: join(dir, 'tasks.db') });
  const clock = { now: T0 };
  return {
    name: 'sqlite', storage, clock, manager: managerOf(createSqliteEngineStore(storage), clock),
    query: async (sql) => storage.db.prepare(sql).all() as Record<string, unknown>[],
    close: async () => {
      storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresBackend(): Promise<Backend> {
  const database = await createTestDatabase('svc_compact_blocks');
  const storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 3, rollupIntervalMs: 0 });
  const store = createPostgresEngineStore(storage);
  const clock = { now: T0 };
  return {
    name: 'postgres', storage, clock, manager: managerOf(store, clock),
    query: async (sql) => (await storage.query(sql)).rows as Record<string, unknown>[],
    close: async () => {
      await store.dispose();
      await storage.close();
      await database.drop();
    },
  };
}

const count = async (b: Backend, sql: string) => Number(Object.values((await b.query(sql))[0]!)[0]);
const apart = (b: Backend) => b.query(APART);

describe.each([['sqlite', sqliteBackend], ['postgres', postgresBackend]] as const)('%s: compact rows counted by block of seqs', (_name, open) => {
  it('the counts equal a recount after a catch-up, a cancelled schedule, a spill of chosen rows, a promotion, and another catch-up', async () => {
    const b = await open();
    try {
      for (const key of ['a', 'b', 'c']) {
        await b.manager.upsert({ key, type: `Blocks.${key}`, cron: '* * * * *', misfire: { policy: 'ReplayAll', overflowCap: 5000 } });
      }
      b.clock.now = T0 + DOWN;
      expect((await b.manager.materializer.drain(b.clock.now)).written).toBe(ROWS);
      expect(await count(b, 'SELECT COUNT(*) FROM pending_occurrences')).toBe(ROWS);
      expect(await count(b, 'SELECT COUNT(DISTINCT block) FROM compact_seq_blocks')).toBeGreaterThan(1);
      expect(await apart(b)).toEqual([]);

      // A cancelled schedule: its compact rows become task rows (deleted here).
      expect((await b.manager.cancel('b')).status).toBe('Succeeded');
      expect(await count(b, 'SELECT COUNT(*) FROM pending_occurrences')).toBe(ROWS - 1440);
      expect(await apart(b)).toEqual([]);

      // Chosen rows from the middle of a schedule's rows, then the oldest due ones.
      const ids = (await b.query(`SELECT id FROM pending_occurrences WHERE seq % 3 = 0 ORDER BY seq LIMIT 500 OFFSET 200`)).map((r) => String(r['id']));
      expect(await spillCompact(b.storage, { ids })).toBe(500);
      expect(await spillCompact(b.storage, { due: T0 + DOWN }, 900)).toBe(900);
      expect(await apart(b)).toEqual([]);

      // Another catch-up after 3 h more: the remaining schedules' rows, appended to the blocks.
      b.clock.now += 3 * 60 * MIN;
      expect((await b.manager.materializer.drain(b.clock.now)).written).toBe(2 * 180);
      expect(await apart(b)).toEqual([]);
      expect(await count(b, 'SELECT SUM(n) FROM compact_seq_blocks')).toBe(await count(b, 'SELECT COUNT(*) FROM pending_occurrences'));
    } finally {
      await b.close();
    }
  }, 120_000);
});

describe('SQLite: the catch-up writer counts its own rows\' blocks', () => {
  it('counts each row once: the insert trigger steps aside for it alone; rows skipped as already written are not counted; another insert is counted by the trigger', async () => {
    const b = await sqliteBackend();
    const storage = b.storage as SqliteStorage;
    const db = storage.db;
    try {
      const scheduleId = await b.manager.upsert({ key: 'probe', type: 'Blocks.Probe', every: '1m', misfire: { policy: 'ReplayAll', overflowCap: 5000 } });
      db.prepare('INSERT INTO occurrence_schedules (schedule_id) VALUES (?)').run(scheduleId);
      const ref = db.prepare('SELECT ref FROM occurrence_schedules WHERE schedule_id = ?').pluck().get(scheduleId) as number;
      const parents = new Map([[scheduleId, { ref, handler: 'h' }]]);
      const occurrence = (slot: number): NewOccurrence => ({
        parentTaskId: scheduleId, queue: 'default', type: 'Blocks.Probe', handler: 'h', request: '{}', createdAt: T0, scheduledAt: slot,
        nominalSlotAt: slot, runNumber: 1, scheduleVersion: 1, misfireKind: 'CatchUp', missedFrom: null, missedThrough: null, missedCount: null, missedCountIsExact: null,
      } as NewOccurrence);
      const write = (slots: number[], prefix: string) => db.transaction(() =>
        insertCompactOccurrences(db, slots.map(occurrence), slots.map((_, i) => `${prefix}-${i}`), parents))();
      const slots = Array.from({ length: 5000 }, (_, i) => T0 + i * MIN);

      expect(write(slots, 'first')).toBe(5000);
      expect(await apart(b)).toEqual([]);
      expect(await count(b, 'SELECT SUM(n) FROM compact_seq_blocks')).toBe(5000);
      // 100 new slots among 200 already written: only the new ones are counted.
      expect(write([...slots.slice(4900), ...Array.from({ length: 100 }, (_, i) => T0 + (5000 + i) * MIN)], 'second')).toBe(100);
      expect(await count(b, 'SELECT SUM(n) FROM compact_seq_blocks')).toBe(5100);
      expect(await apart(b)).toEqual([]);
      // Nothing left saying so: a plain insert afterwards is counted by the trigger.
      expect(await count(b, 'SELECT COUNT(*) FROM compact_blocks_counted_ahead')).toBe(0);
      db.prepare(`INSERT INTO pending_occurrences (id, schedule_ref, nominal_slot_at, scheduled_at, created_at, run_number, schedule_version)
        VALUES ('plain', ?, ?, ?, ?, 1, 1)`).run(ref, T0 - MIN, T0 - MIN, T0);
      expect(await count(b, 'SELECT SUM(n) FROM compact_seq_blocks')).toBe(5101);
      expect(await apart(b)).toEqual([]);
    } finally {
      await b.close();
    }
  }, 60_000);
});
