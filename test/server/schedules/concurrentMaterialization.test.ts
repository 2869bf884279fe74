// @backends sqlite — opens its own PostgreSQL and SQLite stores (the store decides how many transactions run at once).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createScheduleManager, type ScheduleManagerOptions } from '../../../server/src/engine/schedules/index.js';
import type { EngineStore, ScheduleStore } from '../../../server/src/storage/EngineStore.js';
import { createPostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import { createSqliteEngineStore } from '../../../server/src/storage/sqlite/createSqliteEngineStore.js';
import { openSqliteStorage } from '../../../server/src/storage/sqlite/openSqliteStorage.js';
import { CATCH_UP_DOWN, CATCH_UP_T0, upsertCatchUpSchedules } from '../../fixtures/server/catchUpSchedules.js';
import { createTestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { snapshotReadModels } from '../../fixtures/server/postgresReadModelSnapshot.js';
import { scheduleInternals } from '../../fixtures/scheduleInternals.js';

// One instance's catch-up on PostgreSQL runs two write transactions at once over disjoint
// schedules (each on its own server backend), as two instances would; SQLite, one writer, one at a
// time. Either way each slot is written once and counted as a rebuild counts it.

/** Counts the store's materialize transactions in flight at once (the most seen) and in all. */
function watchTransactions(schedules: ScheduleStore): { most: number; count: number } {
  const seen = { most: 0, count: 0 };
  let now = 0;
  const materialize = schedules.materialize.bind(schedules);
  schedules.materialize = async (input) => {
    now++;
    seen.count++;
    seen.most = Math.max(seen.most, now);
    try {
      return await materialize(input);
    } finally {
      now--;
    }
  };
  return seen;
}

/** The catch-up fixture (four schedules, 2,310 slots), one schedule per transaction (each has at least 30 slots). */
const ONE_SCHEDULE_PER_TRANSACTION: ScheduleManagerOptions = { rowsPerTransaction: 30, compactFrom: 25 };

async function catchUp(store: EngineStore, options: ScheduleManagerOptions = {}): Promise<{ written: number; most: number; count: number }> {
  const clock = { now: CATCH_UP_T0 };
  const manager = createScheduleManager(scheduleInternals(store, () => clock.now, []), { ...ONE_SCHEDULE_PER_TRANSACTION, ...options });
  await upsertCatchUpSchedules(manager);
  const seen = watchTransactions(store.schedules);
  clock.now += CATCH_UP_DOWN;
  const { written } = await manager.materializer.drain(clock.now);
  return { written, ...seen };
}

describe('one instance materializes in as many transactions at once as its store runs side by side', () => {
  it('PostgreSQL: two at once by default; each slot once; read models as a rebuild gives them', async () => {
    const database = await createTestDatabase('svc_concurrent_materialize');
    const storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 3, rollupIntervalMs: 0 });
    const store = createPostgresEngineStore(storage);
    try {
      const { written, most, count } = await catchUp(store);
      expect(written).toBe(2310);
      expect(count).toBe(4);
      expect(most).toBe(2);
      const rows = async (sql: string) => (await storage.query<Record<string, unknown>>(sql)).rows;
      expect(await rows(`SELECT COUNT(*)::int AS n, COUNT(DISTINCT (parent_task_id, nominal_slot_at))::int AS slots FROM (
        SELECT parent_task_id, nominal_slot_at FROM tasks WHERE parent_task_id IS NOT NULL
        UNION ALL SELECT parent_task_id, nominal_slot_at FROM pending_occurrence_tasks) AS o`)).toEqual([{ n: 2310, slots: 2310 }]);
      // Every transaction had at least compactFrom missed slots: all compact, every schedule's cursor at the end.
      expect(await rows(`SELECT COUNT(*)::int AS n FROM pending_occurrences`)).toEqual([{ n: 2310 }]);
      expect(await rows(`SELECT COUNT(*)::int AS n FROM tasks WHERE schedule_definition IS NOT NULL AND cursor_at < ${CATCH_UP_T0 + CATCH_UP_DOWN - 3_600_000}`))
        .toEqual([{ n: 0 }]);
      const live = await snapshotReadModels(storage);
      await storage.rebuildReadModels();
      expect(await snapshotReadModels(storage)).toEqual(live);
    } finally {
      await store.dispose();
      await storage.close();
      await database.drop();
    }
  }, 120_000);

  it('PostgreSQL: `concurrency: 1` writes one transaction at a time', async () => {
    const database = await createTestDatabase('svc_concurrent_materialize1');
    const storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 3, rollupIntervalMs: 0 });
    const store = createPostgresEngineStore(storage);
    try {
      expect(await catchUp(store, { concurrency: 1 })).toEqual({ written: 2310, most: 1, count: 4 });
    } finally {
      await store.dispose();
      await storage.close();
      await database.drop();
    }
  }, 120_000);

  it('SQLite: one at a time (one writer)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'concurrent-materialize-'));
    const storage = openSqliteStorage({ file: join(dir, 'tasks.db') });
    try {
      expect(await catchUp(createSqliteEngineStore(storage))).toEqual({ written: 2310, most: 1, count: 4 });
    } finally {
      storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
