import { describe, expect, it } from 'vitest';
import type { Engine } from '../../../server/src/index.js';
import { createScheduleManager } from '../../../server/src/engine/schedules/index.js';
import { rebuildSearchRows } from '../../../server/src/storage/sqlite/readModels/rebuildSearchRows.js';
import { scheduleInternals } from '../../fixtures/scheduleInternals.js';
import { snapshotReadModels } from '../../fixtures/server/postgresReadModelSnapshot.js';
import { openStoreUnderTest, type StoreUnderTest } from '../../fixtures/server/storeUnderTest.js';
import { snapshotSqliteReadModels } from '../../fixtures/server/sqliteReadModelSnapshot.js';
import { waitFor } from '../../fixtures/waitFor.js';

// A catch-up of 3 schedules × 600 minute slots, written in one transaction, is written compact
// (1,800 ≥ compactFrom 1,000). The real engine then runs all of it: each compact occurrence
// becomes a task row when promoted, and from there lives as any occurrence does.

const NOW = Date.parse('2026-03-02T10:00:30.000Z');
const CREATED = NOW - 600 * 60_000; // 00:00:30: slots 00:01 … 10:00, 600 each
const TYPES = ['Compact.Alpha', 'Compact.Beta', 'Compact.Gamma'];

/** The read models and the occurrences' search rows (SQLite) or search words (PostgreSQL). */
async function readModelsAndSearch(sut: StoreUnderTest): Promise<unknown> {
  const storage = await sut.storage();
  if ('db' in storage) {
    return {
      models: snapshotSqliteReadModels(storage.db),
      search: storage.db.prepare('SELECT task_id, created_at, queue, type, is_recurring, is_occurrence, status FROM task_search_rows ORDER BY task_id').all(),
    };
  }
  return {
    models: await snapshotReadModels(storage),
    search: (await storage.query(`SELECT t.id, s.words::text AS words FROM task_search s JOIN tasks t ON t.seq = s.seq ORDER BY t.id`)).rows,
  };
}

/** The read models and search rows recomputed from the task rows (and compact rows), as a repair does. */
async function rebuild(sut: StoreUnderTest): Promise<void> {
  const storage = await sut.storage();
  if ('db' in storage) {
    storage.rebuildReadModels();
    rebuildSearchRows(storage.db);
  } else await storage.rebuildReadModels();
}

describe('a compact catch-up in the real engine', () => {
  it('runs every slot exactly once; each occurrence ends Completed with the audits of a task row; nothing stays compact', async () => {
    const sut = openStoreUnderTest();
    let engine: Engine | undefined;
    try {
      const q = sut.probe;
      const count = async (sql: string, ...params: unknown[]) => Number(await q.value(sql, ...params));
      const before = sut.engine({ clock: () => CREATED });
      const ids: string[] = [];
      for (const [i, type] of TYPES.entries()) {
        ids.push(await before.schedules.upsert({
          key: `compact-${i}`, type, request: { n: i }, cron: '* * * * *', auditLevel: 'Full',
          misfire: { policy: 'ReplayAll', windowMs: 11 * 3_600_000, overflowCap: 1000 },
        }));
      }
      // The catch-up, as the engine's materializer writes it (default options: one transaction, compact from 1,000).
      const manager = createScheduleManager(scheduleInternals(sut.store, () => NOW, []));
      expect((await manager.materializer.drain(NOW)).written).toBe(1800);
      expect(await count('SELECT COUNT(*) FROM pending_occurrences')).toBe(1800);
      expect(await count('SELECT COUNT(*) FROM tasks WHERE parent_task_id IS NOT NULL')).toBe(0);

      engine = sut.engine({ pollIntervalMs: 20, clock: () => NOW });
      const ran: string[] = [];
      for (const type of TYPES) engine.handle(type, async (_req, ctx) => void ran.push(ctx.taskId));
      await engine.start();
      const completed = () => count(`SELECT COUNT(*) FROM tasks WHERE parent_task_id IS NOT NULL AND status = 'Completed'`);
      await waitFor(async () => (await completed()) === 1800, 60_000, 'the compact catch-up to run', 20);
      await engine.stop({ graceMs: 1000 });
      engine = undefined;

      expect(ran).toHaveLength(1800);
      expect(new Set(ran).size).toBe(1800);
      expect(await count('SELECT COUNT(*) FROM pending_occurrences')).toBe(0);
      for (const id of ids) {
        const occ = await q.rows<{ id: string; status: string; slot: number; n: number }>(
          'SELECT id, status, nominal_slot_at AS slot, run_number AS n FROM tasks WHERE parent_task_id = ? ORDER BY nominal_slot_at', id);
        expect(occ.map((o) => o.slot)).toEqual(Array.from({ length: 600 }, (_, i) => CREATED - 30_000 + (i + 1) * 60_000));
        expect(occ.map((o) => o.n)).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
        expect(occ.every((o) => o.status === 'Completed')).toBe(true);
      }
      expect(new Set(ran)).toEqual(new Set(await q.values('SELECT id FROM tasks WHERE parent_task_id IS NOT NULL')));

      // Audits: Pending at creation, then Queued, InProgress, Completed, for every occurrence.
      const audits = await q.rows<{ task_id: string; new_status: string; updated_at: number; created_at: number }>(`SELECT a.task_id, a.new_status, a.updated_at, t.created_at
        FROM status_audit a JOIN tasks t ON t.id = a.task_id WHERE t.parent_task_id IS NOT NULL ORDER BY a.task_id, a.id`);
      const byTask = new Map<string, typeof audits>();
      for (const a of audits) byTask.set(a.task_id, [...(byTask.get(a.task_id) ?? []), a]);
      expect(byTask.size).toBe(1800);
      for (const rows of byTask.values()) {
        expect(rows.map((r) => r.new_status)).toEqual(['Pending', 'Queued', 'InProgress', 'Completed']);
        expect(rows[0]!.updated_at).toBe(rows[0]!.created_at);
      }
      // One search row (SQLite) or search-words row (PostgreSQL) per occurrence; read models and search as a rebuild makes them.
      expect(await count(sut.backend === 'postgres'
        ? 'SELECT COUNT(*) FROM task_search s JOIN tasks t ON t.seq = s.seq WHERE t.parent_task_id IS NOT NULL'
        : 'SELECT COUNT(*) FROM task_search_rows s JOIN tasks t ON t.id = s.task_id WHERE t.parent_task_id IS NOT NULL')).toBe(1800);
      const live = (await readModelsAndSearch(sut)) as { models: Record<string, Record<string, unknown>[]> };
      expect(live.models['stat_tasks']!.filter((r) => Number(r['is_occurrence']) === 1).map((r) => ({ ...r, n: Number(r['n']) }))).toEqual(
        TYPES.map((type) => expect.objectContaining({ type, status: 'Completed', n: 600 })),
      );
      await rebuild(sut);
      expect(await readModelsAndSearch(sut)).toEqual(live);
    } finally {
      await engine?.stop({ graceMs: 0 });
      await sut.destroy();
    }
  }, 90_000);
});
