// @backends sqlite deferred — compact Pending occurrences are SQLite's (migration 15); PostgreSQL writes every occurrence as a task row.
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../../server/src/index.js';
import { createScheduleManager } from '../../../server/src/engine/schedules/index.js';
import { rebuildSearchRows } from '../../../server/src/storage/sqlite/readModels/rebuildSearchRows.js';
import { scheduleInternals } from '../../fixtures/scheduleInternals.js';
import { openStoreUnderTest } from '../../fixtures/server/storeUnderTest.js';
import { snapshotSqliteReadModels } from '../../fixtures/server/sqliteReadModelSnapshot.js';
import { waitFor } from '../../fixtures/waitFor.js';

// A catch-up of 3 schedules × 600 minute slots, written in one transaction, is written compact
// (1,800 ≥ compactFrom 1,000). The real engine then runs all of it: each compact occurrence
// becomes a task row when promoted, and from there lives as any occurrence does.

const NOW = Date.parse('2026-03-02T10:00:30.000Z');
const CREATED = NOW - 600 * 60_000; // 00:00:30: slots 00:01 … 10:00, 600 each
const TYPES = ['Compact.Alpha', 'Compact.Beta', 'Compact.Gamma'];

describe('a compact catch-up in the real engine (SQLite)', () => {
  it('runs every slot exactly once; each occurrence ends Completed with the audits of a task row; nothing stays compact', async () => {
    const sut = openStoreUnderTest();
    let engine: Engine | undefined;
    try {
      const db = sut.sqlite!.db;
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
      expect(db.prepare('SELECT COUNT(*) FROM pending_occurrences').pluck().get()).toBe(1800);
      expect(db.prepare('SELECT COUNT(*) FROM tasks WHERE parent_task_id IS NOT NULL').pluck().get()).toBe(0);

      engine = sut.engine({ pollIntervalMs: 20, clock: () => NOW });
      const ran: string[] = [];
      for (const type of TYPES) engine.handle(type, async (_req, ctx) => void ran.push(ctx.taskId));
      await engine.start();
      const completed = db.prepare(`SELECT COUNT(*) FROM tasks WHERE parent_task_id IS NOT NULL AND status = 'Completed'`).pluck();
      await waitFor(async () => completed.get() === 1800, 60_000, 'the compact catch-up to run', 20);
      await engine.stop({ graceMs: 1000 });
      engine = undefined;

      expect(ran).toHaveLength(1800);
      expect(new Set(ran).size).toBe(1800);
      expect(db.prepare('SELECT COUNT(*) FROM pending_occurrences').pluck().get()).toBe(0);
      for (const id of ids) {
        const occ = db.prepare('SELECT id, status, nominal_slot_at AS slot, run_number AS n FROM tasks WHERE parent_task_id = ? ORDER BY nominal_slot_at')
          .all(id) as { id: string; status: string; slot: number; n: number }[];
        expect(occ.map((o) => o.slot)).toEqual(Array.from({ length: 600 }, (_, i) => CREATED - 30_000 + (i + 1) * 60_000));
        expect(occ.map((o) => o.n)).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
        expect(occ.every((o) => o.status === 'Completed')).toBe(true);
      }
      expect(new Set(ran)).toEqual(new Set(db.prepare('SELECT id FROM tasks WHERE parent_task_id IS NOT NULL').pluck().all()));

      // Audits: Pending at creation, then Queued, InProgress, Completed, for every occurrence.
      const audits = db.prepare(`SELECT a.task_id, a.new_status, a.updated_at, t.created_at FROM status_audit a JOIN tasks t ON t.id = a.task_id
        WHERE t.parent_task_id IS NOT NULL ORDER BY a.task_id, a.id`).all() as { task_id: string; new_status: string; updated_at: number; created_at: number }[];
      const byTask = new Map<string, typeof audits>();
      for (const a of audits) byTask.set(a.task_id, [...(byTask.get(a.task_id) ?? []), a]);
      expect(byTask.size).toBe(1800);
      for (const rows of byTask.values()) {
        expect(rows.map((r) => r.new_status)).toEqual(['Pending', 'Queued', 'InProgress', 'Completed']);
        expect(rows[0]!.updated_at).toBe(rows[0]!.created_at);
      }
      // One search row per occurrence; read models and search rows as a rebuild makes them.
      expect(db.prepare('SELECT COUNT(*) FROM task_search_rows s JOIN tasks t ON t.id = s.task_id WHERE t.parent_task_id IS NOT NULL').pluck().get()).toBe(1800);
      const view = () => ({
        models: snapshotSqliteReadModels(db),
        search: db.prepare('SELECT task_id, created_at, queue, type, is_recurring, is_occurrence, status FROM task_search_rows ORDER BY task_id').all(),
      });
      const live = view();
      expect(live.models['stat_tasks']!.filter((r) => r['is_occurrence'] === 1)).toEqual(
        TYPES.map((type) => expect.objectContaining({ type, status: 'Completed', n: 600 })),
      );
      sut.sqlite!.rebuildReadModels();
      rebuildSearchRows(db);
      expect(view()).toEqual(live);
    } finally {
      await engine?.stop({ graceMs: 0 });
      await sut.destroy();
    }
  }, 90_000);
});
