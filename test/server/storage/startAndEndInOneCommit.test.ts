import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteEngineStore, isAllowedWrite, openSqliteStorage, type TaskStatus } from '../../../server/src/index.js';
import type { CommitBatch, FinishedRun, NewTask } from '../../../server/src/storage/EngineStore.js';
import { startsOf, tokenOf } from '../../fixtures/server/runTokens.js';
import { snapshotSqliteReadModels } from '../../fixtures/server/sqliteReadModelSnapshot.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

const T0 = Date.UTC(2026, 10, 27, 12);
const batch = (now: number, part: Partial<CommitBatch> = {}): CommitBatch => ({
  now, logs: [], insertTasks: [], cancels: [], attemptFailures: [], completeRuns: [], serviceStopped: [], capacities: new Map(), dispatching: null, ...part,
});
const task = (i: number): NewTask => ({
  id: randomUUID(), type: 'Whole.Run', handler: 'Whole.RunHandler', request: JSON.stringify({ i }), queue: 'default', taskKey: null,
  auditLevel: 'Full', createdAt: T0 + i, scheduledAt: null, dueAt: 0, retryPolicy: null, timeoutMs: null, rateLimitKey: null, isRecurring: false,
  recurrence: null,
});
const ended = (id: string, endedAt: number, outcome: FinishedRun['outcome'], exception: string | null = null): FinishedRun => ({
  id, token: tokenOf(id), auditLevel: 'Full', endedAt, executionTimeMs: outcome === 'Completed' ? 2 : 0, outcome, exception, nextStatus: outcome,
  nextScheduledAt: null, recurring: false,
});

describe('a run whose start and end ride the same commit', () => {
  it('is one write of its row from Queued to its end, with both audit rows and both status moves; a row taken meanwhile is left alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-whole-run-'));
    dirs.push(dir);
    const storage = openSqliteStorage({ file: join(dir, 'tasks.db') });
    try {
      const store = createSqliteEngineStore(storage);
      const db = storage.db;
      const tasks = [task(1), task(2), task(3), task(4), task(5)];
      const [ok, failed, cancelled, taken, moved] = tasks.map((t) => t.id) as [string, string, string, string, string];
      await store.commit(batch(T0 + 10, { insertTasks: tasks }));
      const claim = await store.commit(batch(T0 + 20, {
        dispatching: { promoteLimit: 0, claims: [{ queue: 'default', limit: 5 }], types: ['Whole.Run'], decide: null, reservationMs: 250 },
      }));
      expect(claim.claimed.map((r) => r.id)).toEqual(tasks.map((t) => t.id));
      // Another process cancels one reserved row before the commit; another row's rowid moves (a VACUUM).
      const other = openSqliteStorage({ file: join(dir, 'tasks.db') });
      try {
        expect((await createSqliteEngineStore(other).commit(batch(T0 + 22, { cancels: [taken] }))).cancelled[0]!.result).toBe('Cancelled');
      } finally {
        other.close();
      }
      const rowid = db.prepare('SELECT rowid FROM tasks WHERE id = ?').pluck();
      const claimedRowid = rowid.get(moved);
      db.prepare('UPDATE tasks SET rowid = ? WHERE id = ?').run((db.prepare('SELECT MAX(rowid) FROM tasks').pluck().get() as number) + 100, moved);
      expect(rowid.get(moved)).not.toBe(claimedRowid);

      db.exec(`CREATE TEMP TABLE writes (task_id TEXT, from_status TEXT, to_status TEXT);
        CREATE TEMP TRIGGER rec_update AFTER UPDATE OF status ON main.tasks WHEN old.status IS NOT new.status BEGIN
          INSERT INTO writes VALUES (new.id, old.status, new.status);
        END;`);
      const startedAt = T0 + 25;
      const out = await store.commit(batch(T0 + 30, {
        startRuns: startsOf(claim.claimed, startedAt),
        completeRuns: [
          ended(ok, T0 + 26, 'Completed'), ended(failed, T0 + 27, 'Failed', 'Error: no'), ended(cancelled, T0 + 28, 'Cancelled'),
          ended(taken, T0 + 29, 'Completed'), ended(moved, T0 + 29, 'Completed'),
        ],
      }));
      expect(out.started).toEqual([true, true, true, false, true]);
      expect(out.finished).toEqual([true, true, true, false, true]);

      // One write per run whose row this store could name by its claim; the moved row takes a start and an end apart.
      const writes = db.prepare('SELECT task_id, from_status, to_status FROM writes').raw().all() as [string, TaskStatus, TaskStatus][];
      expect(writes).toEqual([
        [ok, 'Queued', 'Completed'], [failed, 'Queued', 'Failed'], [cancelled, 'Queued', 'Cancelled'],
        [moved, 'Queued', 'InProgress'], [moved, 'InProgress', 'Completed'],
      ]);
      expect(writes.filter(([, from, to]) => !isAllowedWrite(from, to))).toEqual([]);

      const row = db.prepare('SELECT status, started_at, last_execution_at, run_count, last_outcome, exception, run_token, reserved_by FROM tasks WHERE id = ?');
      expect(row.get(ok)).toEqual({
        status: 'Completed', started_at: startedAt, last_execution_at: T0 + 26, run_count: 1, last_outcome: 'Completed', exception: null,
        run_token: tokenOf(ok), reserved_by: null,
      });
      expect(row.get(failed)).toMatchObject({ status: 'Failed', started_at: startedAt, run_count: 1, last_outcome: 'Failed', exception: 'Error: no' });
      expect(row.get(cancelled)).toMatchObject({ status: 'Cancelled', started_at: startedAt, run_count: 0, last_outcome: null });
      expect(row.get(taken)).toMatchObject({ status: 'Cancelled', started_at: null, run_count: 0 });
      expect(row.get(moved)).toMatchObject({ status: 'Completed', started_at: startedAt, run_count: 1 });

      // The audit keeps the step in between, at the instant the handler began.
      const audits = (id: string) => db.prepare('SELECT new_status, updated_at FROM status_audit WHERE task_id = ? ORDER BY id').raw().all(id);
      expect(audits(ok)).toEqual([['Queued', T0 + 1], ['InProgress', startedAt], ['Completed', T0 + 26]]);
      expect(audits(failed)).toEqual([['Queued', T0 + 2], ['InProgress', startedAt], ['Failed', T0 + 27]]);
      expect(audits(cancelled)).toEqual([['Queued', T0 + 3], ['InProgress', startedAt], ['Cancelled', T0 + 28]]);
      expect(audits(taken)).toEqual([['Queued', T0 + 4], ['Cancelled', T0 + 22]]);
      expect(audits(moved)).toEqual([['Queued', T0 + 5], ['InProgress', startedAt], ['Completed', T0 + 29]]);
      const searchStatus = db.prepare('SELECT status FROM task_search_rows WHERE task_id = ?').pluck();
      expect(tasks.map((t) => searchStatus.get(t.id))).toEqual(['Completed', 'Failed', 'Cancelled', 'Cancelled', 'Completed']);

      // The read models equal a recomputation from the rows.
      db.exec('DROP TRIGGER temp.rec_update');
      expect(db.prepare('SELECT status, n FROM stat_tasks WHERE n <> 0 ORDER BY status').raw().all()).toEqual([['Cancelled', 2], ['Completed', 2], ['Failed', 1]]);
      const live = snapshotSqliteReadModels(db);
      storage.rebuildReadModels();
      expect(live).toEqual(snapshotSqliteReadModels(db));
    } finally {
      storage.close();
    }
  });
});
