// @backends sqlite — opens its own PostgreSQL database (a rule of PostgreSQL's compact-occurrence trigger).
import { describe, expect, it } from 'vitest';
import { createScheduleManager } from '../../../server/src/engine/schedules/index.js';
import { createPostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import { COMPACT_DELTAS_WRITTEN_SETTING } from '../../../server/src/storage/postgres/readModels/readModelTriggerFunctions.js';
import { createTestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { scheduleInternals } from '../../fixtures/scheduleInternals.js';

// A catch-up's COPY of compact occurrences appends their read-model deltas ahead, from the rows in
// hand, and says so for its transaction; the table's insert trigger then steps aside for that one
// insert only: every compact row is counted once, whoever writes it.

const T0 = Date.parse('2026-03-05T22:00:30Z');

describe('PostgreSQL: compact occurrences counted ahead by their writer', () => {
  it('the insert trigger steps aside once for a writer that counted its rows ahead; the next insert is counted by it', async () => {
    const database = await createTestDatabase('svc_compact_ahead');
    const storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 2, rollupIntervalMs: 0 });
    const store = createPostgresEngineStore(storage);
    try {
      const manager = createScheduleManager(scheduleInternals(store, () => T0, []));
      const scheduleId = await manager.upsert({ key: 'probe', type: 'Ahead.Probe', every: '1m', misfire: { policy: 'ReplayAll' } });
      const pending = async () =>
        Number((await storage.query<{ n: string | null }>(`SELECT SUM(n) AS n FROM stat_tasks_v WHERE type = 'Ahead.Probe' AND is_occurrence = 1`)).rows[0]!.n ?? 0);
      const insert = (c: { query: (sql: string, params: unknown[]) => Promise<unknown> }, id: string, slot: number) =>
        c.query(`INSERT INTO pending_occurrences (id, schedule_ref, nominal_slot_at, scheduled_at, created_at, run_number, schedule_version)
          SELECT $1, ref, $2, $2, $2, 1, 1 FROM occurrence_schedules WHERE schedule_id = $3`, [id, slot, scheduleId]);
      const setting = async (c: { query: (sql: string) => Promise<{ rows: { v: string | null }[] }> }) =>
        (await c.query(`SELECT current_setting('${COMPACT_DELTAS_WRITTEN_SETTING}', true) AS v`)).rows[0]!.v;

      const after = await storage.transaction(async (c) => {
        await c.query(`INSERT INTO occurrence_schedules (schedule_id) VALUES ($1)`, [scheduleId]);
        await c.query(`SELECT set_config('${COMPACT_DELTAS_WRITTEN_SETTING}', 'on', true)`);
        await insert(c, 'ahead-1', T0 + 60_000);
        const cleared = await setting(c);
        await insert(c, 'ahead-2', T0 + 120_000);
        return cleared;
      });
      expect(after).toBe('off');
      // The first insert's writer said it counted it (here it did not: 0), the second is the trigger's.
      expect(await pending()).toBe(1);
    } finally {
      await store.dispose();
      await storage.close();
      await database.drop();
    }
  }, 60_000);

  it('a compact catch-up counts each occurrence once, in its schedule\'s group', async () => {
    const database = await createTestDatabase('svc_compact_ahead2');
    const storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 3, rollupIntervalMs: 0 });
    const store = createPostgresEngineStore(storage);
    try {
      const clock = { now: T0 };
      const manager = createScheduleManager(scheduleInternals(store, () => clock.now, []), { compactFrom: 10, rowsPerTransaction: 100 });
      await manager.upsert({ key: 'a', type: 'Ahead.A', queue: 'qa', every: '1m', misfire: { policy: 'ReplayAll', overflowCap: 5000 } });
      await manager.upsert({ key: 'b', type: 'Ahead.B', every: '5m', misfire: { policy: 'ReplayAll', overflowCap: 5000 } });
      clock.now += 10 * 3_600_000;
      expect((await manager.materializer.drain(clock.now)).written).toBe(600 + 120);
      expect(Number((await storage.query<{ n: string }>(`SELECT COUNT(*) AS n FROM pending_occurrences`)).rows[0]!.n)).toBe(720);
      expect((await storage.query(`SELECT queue, type, status, SUM(n)::int AS n FROM stat_tasks_v WHERE is_occurrence = 1 GROUP BY 1, 2, 3 ORDER BY 1, 2`)).rows)
        .toEqual([{ queue: 'default', type: 'Ahead.B', status: 'Pending', n: 120 }, { queue: 'qa', type: 'Ahead.A', status: 'Pending', n: 600 }]);
      // Counted in the creation hour and day of the catch-up, as the trigger counts.
      expect((await storage.query(`SELECT hour, type, SUM(n)::int AS n FROM stat_created_hour_v WHERE status = 'Pending' AND type LIKE 'Ahead.%'
        AND hour = ${Math.floor(clock.now / 3_600_000)} GROUP BY 1, 2 ORDER BY 2`)).rows.map((r) => r['n'])).toEqual([600, 120]);
      // Nothing left set for a later insert of another transaction.
      expect((await storage.query(`SELECT current_setting('${COMPACT_DELTAS_WRITTEN_SETTING}', true) AS v`)).rows[0]!['v'] ?? '').not.toBe('on');
    } finally {
      await store.dispose();
      await storage.close();
      await database.drop();
    }
  }, 60_000);
});
