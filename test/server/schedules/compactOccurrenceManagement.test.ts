import { afterEach, describe, expect, it } from 'vitest';
import type { CommitBatch } from '../../../server/src/storage/EngineStore.js';
import { rebuildSearchRows } from '../../../server/src/storage/sqlite/readModels/rebuildSearchRows.js';
import { snapshotReadModels } from '../../fixtures/server/postgresReadModelSnapshot.js';
import { openScheduleHarness, type ScheduleHarness } from '../../fixtures/server/scheduleHarness.js';
import { snapshotSqliteReadModels } from '../../fixtures/server/sqliteReadModelSnapshot.js';

// A catch-up of at least `compactFrom` occurrences in one transaction writes them compact (a
// small row each in pending_occurrences). Every writer that acts on an occurrence by id, by a
// bulk selection or through its schedule must act on a compact one exactly as on the task row it
// stands for: these tests put a compact occurrence and a Pending task-row occurrence of the same
// schedule side by side and expect the same outcome, the same audits, and read models and search
// rows that a rebuild from the tables reproduces.

let h: ScheduleHarness;
afterEach(() => h?.close());

const HOUR = 3_600_000;
const START = '2026-01-05T00:30:00Z';
const OLD_REQUEST = { report: 'ACME margins', version: 'old' };

const batch = (now: number, part: Partial<CommitBatch> = {}): CommitBatch => ({
  now, logs: [], insertTasks: [], cancels: [], attemptFailures: [], completeRuns: [], serviceStopped: [], capacities: new Map(), dispatching: null, ...part,
});

/**
 * An hourly schedule down for a day: its 24 catch-up occurrences are written compact
 * (compactFrom 10); an hour later one more is written as a task row (fewer than 10).
 */
async function compactCatchUp(): Promise<{ id: string; compact: string[]; row: string }> {
  h = openScheduleHarness({ startAt: START, compactFrom: 10 });
  const id = await h.manager.upsert({
    key: 'hourly', type: 'Reports.Hourly', request: OLD_REQUEST, cron: '0 * * * *', auditLevel: 'Full',
    misfire: { policy: 'ReplayAll', overflowCap: 100, windowMs: 48 * HOUR },
  });
  await h.tick('2026-01-06T00:30:00Z');
  const compact = await h.probe.values<string>('SELECT id FROM pending_occurrences ORDER BY nominal_slot_at');
  expect(compact).toHaveLength(24);
  await h.tick('2026-01-06T01:30:00Z');
  const rows = await h.probe.values<string>('SELECT id FROM tasks WHERE parent_task_id = ?', id);
  expect(rows).toHaveLength(1);
  expect(await compactCount()).toBe(24);
  return { id, compact, row: rows[0]! };
}

const count = async (sql: string, ...params: unknown[]) => Number(await h.probe.value(sql, ...params));
const compactCount = () => count('SELECT COUNT(*) FROM pending_occurrences');

/** Audit rows of a task, oldest first: status, time, who. */
const auditsOf = (id: string) =>
  h.probe.rows<{ status: string; at: number; by: string | null }>('SELECT new_status AS status, updated_at AS at, changed_by AS by FROM status_audit WHERE task_id = ? ORDER BY id', id);

const createdAt = (id: string) => count('SELECT created_at FROM tasks WHERE id = ?', id);
const statusOf = (id: string) => h.probe.value<string | undefined>('SELECT status FROM tasks WHERE id = ?', id);

/** The search rows of a task id (SQLite) or its search words (PostgreSQL). */
const SEARCH = {
  sqlite: 'SELECT task_id, created_at, queue, type, is_recurring, is_occurrence, status FROM task_search_rows ORDER BY task_id',
  postgres: 'SELECT t.id AS task_id, CAST(s.words AS TEXT) AS words FROM task_search s JOIN tasks t ON t.seq = s.seq ORDER BY t.id',
};

/** Read models, type/handler pairs and search rows (by task id), independent of search-row numbering. */
async function liveView(): Promise<Record<string, unknown>> {
  const storage = await h.sut.storage();
  return {
    models: 'db' in storage ? snapshotSqliteReadModels(storage.db) : await snapshotReadModels(storage),
    handlers: await h.probe.rows('SELECT type, handler FROM monitor_type_handlers ORDER BY 1, 2'),
    search: await h.probe.rows(SEARCH[h.sut.backend]),
    acme: 'db' in storage
      ? storage.db.prepare(`SELECT s.task_id FROM task_request_fts f JOIN task_search_rows s ON s.id = f.rowid WHERE task_request_fts MATCH '"ACME"' ORDER BY 1`).pluck().all()
      : await h.probe.values(`SELECT t.id FROM task_search s JOIN tasks t ON t.seq = s.seq WHERE s.words @@ phraseto_tsquery('simple', 'acme') ORDER BY 1`),
  };
}

/** What the writers kept equals a rebuild of the read models and of the search rows. */
async function expectAsRebuilt(): Promise<void> {
  const live = await liveView();
  const storage = await h.sut.storage();
  if ('db' in storage) {
    storage.rebuildReadModels();
    rebuildSearchRows(storage.db);
  } else await storage.rebuildReadModels();
  expect(await liveView()).toEqual(live);
}

describe('compact occurrences under every writer', () => {
  it('are counted when written, with no audit and no search row, and a rebuild counts them the same', async () => {
    const { compact } = await compactCatchUp();
    const statTasks = h.sut.backend === 'postgres' ? 'stat_tasks_v' : 'stat_tasks';
    expect(await count(`SELECT SUM(n) FROM ${statTasks} WHERE type = 'Reports.Hourly' AND is_occurrence = 1 AND status = 'Pending'`)).toBe(25);
    expect(await count('SELECT COUNT(*) FROM status_audit WHERE task_id IN (SELECT id FROM pending_occurrences)')).toBe(0);
    expect((await h.probe.rows(SEARCH[h.sut.backend])).filter((r) => compact.includes(r['task_id'] as string))).toEqual([]);
    expect(await count(`SELECT COUNT(*) FROM tasks WHERE id IN (SELECT id FROM pending_occurrences)`)).toBe(0);
    await expectAsRebuilt();
  });

  it('cancel by id (the engine store): a compact occurrence ends Cancelled with the audits of a task row', async () => {
    const { compact, row } = await compactCatchUp();
    const target = compact[3]!;
    const out = await h.sut.store.commit(batch(h.now, { cancels: [target, row] }));
    expect(out.cancelled.map((c) => c.result)).toEqual(['Cancelled', 'Cancelled']);
    expect(out.cancelled[0]).toMatchObject({ task: { id: target, status: 'Pending', type: 'Reports.Hourly', is_schedule: 0 } });
    for (const id of [target, row]) {
      expect(await statusOf(id)).toBe('Cancelled');
      expect(await auditsOf(id)).toEqual([
        { status: 'Pending', at: await createdAt(id), by: null },
        { status: 'Cancelled', at: h.now, by: null },
      ]);
    }
    expect(await compactCount()).toBe(23);
    // The same id again: not cancellable (Cancelled), as a task row.
    expect((await h.sut.store.commit(batch(h.now, { cancels: [target] }))).cancelled[0]!.result).toBe('NotCancellable');
    await expectAsRebuilt();
  });

  it('retry (management store) refuses a compact occurrence as it refuses a Pending task-row occurrence', async () => {
    const { compact, row } = await compactCatchUp();
    const management = h.sut.store.management!;
    const asRow = await management.retryTask({ id: row, now: h.now, actor: 'ops@example.com' });
    const asCompact = await management.retryTask({ id: compact[0]!, now: h.now, actor: 'ops@example.com' });
    expect(asRow.status).toBe('Conflict');
    expect(asCompact).toEqual({ ...asRow, taskId: compact[0] });
    expect(await statusOf(compact[0]!)).toBe('Pending');
    expect(await auditsOf(compact[0]!)).toEqual([{ status: 'Pending', at: await createdAt(compact[0]!), by: null }]);
    await expectAsRebuilt();
  });

  it('bulk cancel (management store) includes compact occurrences; bulk requeue and retry skip them and leave them compact', async () => {
    const { compact, row } = await compactCatchUp();
    const management = h.sut.store.management!;
    // What a task-list filter (Pending occurrences of the type) matches: both forms.
    const ids = [row, ...compact.slice(0, 10)];
    const requeue = await management.applyBulkBatch({ action: 'requeue', ids, now: h.now, actor: 'ops@example.com' });
    const retry = await management.applyBulkBatch({ action: 'retry', ids, now: h.now, actor: 'ops@example.com' });
    expect([requeue, retry]).toEqual([{ succeeded: 0, skipped: 11, cancelled: [] }, { succeeded: 0, skipped: 11, cancelled: [] }]);
    expect(await compactCount()).toBe(24);

    h.setNow('2026-01-06T01:45:00Z');
    const cancel = await management.applyBulkBatch({ action: 'cancel', ids, now: h.now, actor: 'ops@example.com', statuses: ['Pending'] });
    expect(cancel.succeeded).toBe(11);
    expect(cancel.skipped).toBe(0);
    expect(new Set(cancel.cancelled.map((t) => t.id))).toEqual(new Set(ids));
    expect(cancel.cancelled.every((t) => t.status === 'Cancelled' && t.request === JSON.stringify(OLD_REQUEST))).toBe(true);
    expect(await compactCount()).toBe(14);
    for (const id of ids) {
      expect(await auditsOf(id)).toEqual([
        { status: 'Pending', at: await createdAt(id), by: null },
        { status: 'Cancelled', at: h.now, by: 'ops@example.com' },
      ]);
    }
    expect(await count(`SELECT COUNT(*) FROM tasks WHERE parent_task_id IS NOT NULL AND status = 'Cancelled'`)).toBe(11);
    await expectAsRebuilt();
  });

  it('requeue of a compact occurrence answers Conflict, as for a Pending task-row occurrence', async () => {
    const { compact, row } = await compactCatchUp();
    const asRow = await h.sut.store.schedules.requeueOccurrence(row, h.now);
    const asCompact = await h.sut.store.schedules.requeueOccurrence(compact[5]!, h.now);
    expect(asRow.status).toBe('Conflict');
    expect(asCompact).toEqual({ ...asRow, taskId: compact[5] });
    // and through the schedule manager (POST /management/tasks/{id}/requeue)
    expect(await h.manager.requeue(compact[6]!)).toMatchObject({ status: 'Conflict', taskId: compact[6] });
    await expectAsRebuilt();
  });

  it('cancelling the schedule cancels its compact occurrences, with their audits', async () => {
    const { id, compact, row } = await compactCatchUp();
    h.setNow('2026-01-06T02:00:00Z');
    const out = await h.manager.cancel('hourly');
    expect(out).toMatchObject({ status: 'Succeeded', taskId: id });
    expect(out.message).toContain('25 pending occurrence(s) cancelled');
    expect(await compactCount()).toBe(0);
    expect(await h.probe.rows('SELECT status, COUNT(*) AS n FROM tasks WHERE parent_task_id = ? GROUP BY 1', id)).toEqual([{ status: 'Cancelled', n: 25 }]);
    for (const o of [row, ...compact]) {
      expect(await auditsOf(o)).toEqual([
        { status: 'Pending', at: await createdAt(o), by: null },
        { status: 'Cancelled', at: h.now, by: null },
      ]);
    }
    await expectAsRebuilt();
  });

  it('a changed definition first turns its compact occurrences into task rows carrying the old request and version', async () => {
    const { id, compact } = await compactCatchUp();
    // Before the change, a compact occurrence shows the schedule row's request (the view).
    expect(await h.probe.row('SELECT request, schedule_version FROM pending_occurrence_tasks WHERE id = ?', compact[0])).toEqual({
      request: JSON.stringify(OLD_REQUEST), schedule_version: 1,
    });
    h.setNow('2026-01-06T01:40:00Z');
    expect(await h.manager.upsert({
      key: 'hourly', type: 'Reports.Hourly', request: { report: 'ACME margins', version: 'new' }, cron: '0 * * * *', auditLevel: 'Full',
      misfire: { policy: 'ReplayAll', overflowCap: 100, windowMs: 48 * HOUR },
    })).toBe(id);
    expect(await h.probe.row('SELECT schedule_version, request FROM tasks WHERE id = ?', id)).toEqual({
      schedule_version: 2, request: JSON.stringify({ report: 'ACME margins', version: 'new' }),
    });
    expect(await compactCount()).toBe(0);
    const occ = await h.probe.rows<{ id: string; status: string; request: string; schedule_version: number }>(
      'SELECT id, status, request, schedule_version FROM tasks WHERE parent_task_id = ? ORDER BY nominal_slot_at', id);
    expect(occ).toHaveLength(25);
    expect(occ.slice(0, 24).map((o) => o.id)).toEqual(compact);
    expect(occ.every((o) => o.status === 'Pending' && o.request === JSON.stringify(OLD_REQUEST) && o.schedule_version === 1)).toBe(true);
    for (const o of compact) expect(await auditsOf(o)).toEqual([{ status: 'Pending', at: await createdAt(o), by: null }]);
    await expectAsRebuilt();
  });

  it('a changed slot pattern cancels the compact occurrences whose slot the new definition does not produce', async () => {
    const { id } = await compactCatchUp();
    h.setNow('2026-01-06T01:40:00Z');
    await h.manager.upsert({
      key: 'hourly', type: 'Reports.Hourly', request: OLD_REQUEST, cron: '0 */2 * * *', auditLevel: 'Full',
      misfire: { policy: 'ReplayAll', overflowCap: 100, windowMs: 48 * HOUR },
    });
    expect(await compactCount()).toBe(0);
    const counts = await h.probe.rows('SELECT status, COUNT(*) AS n FROM tasks WHERE parent_task_id = ? GROUP BY 1 ORDER BY 1', id);
    // 01:00 … 01:00 next day, 25 slots: the odd hours (13) are not produced by every-two-hours.
    expect(counts).toEqual([{ status: 'Cancelled', n: 13 }, { status: 'Pending', n: 12 }]);
    await expectAsRebuilt();
  });
});
