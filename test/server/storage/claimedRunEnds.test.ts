import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteEngineStore, openSqliteStorage } from '../../../server/src/index.js';
import type { CommitBatch, FinishedRun, NewTask } from '../../../server/src/storage/EngineStore.js';
import { startsOf, tokenOf } from '../../fixtures/server/runTokens.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

const T0 = Date.UTC(2026, 10, 26, 12);
const batch = (now: number, part: Partial<CommitBatch> = {}): CommitBatch => ({
  now, logs: [], insertTasks: [], cancels: [], attemptFailures: [], completeRuns: [], serviceStopped: [], capacities: new Map(), dispatching: null, ...part,
});
const task = (i: number): NewTask => ({
  id: randomUUID(), type: 'Claimed.Work', handler: 'Claimed.WorkHandler', request: JSON.stringify({ i }), queue: 'default', taskKey: null,
  auditLevel: 'Full', createdAt: T0 + i, scheduledAt: null, dueAt: 0, retryPolicy: null, timeoutMs: null, rateLimitKey: null, isRecurring: false,
  recurrence: null,
});
const completed = (id: string, endedAt: number): FinishedRun => ({
  id, token: tokenOf(id), auditLevel: 'Full', endedAt, executionTimeMs: 3, outcome: 'Completed', exception: null, nextStatus: 'Completed', nextScheduledAt: null,
  recurring: false,
});

describe('run ends of rows this store claimed', () => {
  it('end the row they name even when rowids moved after the claim (a VACUUM renumbers rows); the counts stay exact', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-claimed-'));
    dirs.push(dir);
    const storage = openSqliteStorage({ file: join(dir, 'tasks.db') });
    try {
      const store = createSqliteEngineStore(storage);
      const tasks = [task(1), task(2), task(3)];
      await store.commit(batch(T0 + 10, { insertTasks: tasks }));
      const claim = await store.commit(batch(T0 + 20, {
        dispatching: { promoteLimit: 0, claims: [{ queue: 'default', limit: 3 }], types: ['Claimed.Work'], decide: null, reservationMs: 250 },
      }));
      expect(claim.claimed.map((r) => r.id)).toEqual(tasks.map((t) => t.id));
      const start = await store.commit(batch(T0 + 25, { startRuns: startsOf(claim.claimed, T0 + 25) }));
      expect(start.started).toEqual([true, true, true]);

      // The first two rows swap rowids after the claim, as a VACUUM between claim and run end may do.
      const db = storage.db;
      const rowid = (id: string) => db.prepare('SELECT rowid FROM tasks WHERE id = ?').pluck().get(id) as number;
      const [a, b] = [rowid(tasks[0]!.id), rowid(tasks[1]!.id)];
      db.transaction(() => {
        db.prepare('UPDATE tasks SET rowid = -1 WHERE rowid = ?').run(a);
        db.prepare('UPDATE tasks SET rowid = ? WHERE rowid = ?').run(a, b);
        db.prepare('UPDATE tasks SET rowid = ? WHERE rowid = -1').run(b);
      })();
      expect(rowid(tasks[0]!.id)).toBe(b);

      const end = await store.commit(batch(T0 + 30, { completeRuns: [completed(tasks[0]!.id, T0 + 30), completed(tasks[2]!.id, T0 + 31)] }));
      expect(end.finished).toEqual([true, true]);
      const statuses = Object.fromEntries(db.prepare('SELECT id, status FROM tasks').raw().all() as [string, string][]);
      expect(statuses).toEqual({ [tasks[0]!.id]: 'Completed', [tasks[1]!.id]: 'InProgress', [tasks[2]!.id]: 'Completed' });
      // A second end of the same run finds the row no longer InProgress and records nothing.
      const again = await store.commit(batch(T0 + 40, { completeRuns: [completed(tasks[0]!.id, T0 + 40)] }));
      expect(again.finished).toEqual([false]);

      const counts = () => db.prepare('SELECT status, n FROM stat_tasks WHERE n <> 0 ORDER BY status').all();
      expect(counts()).toEqual([{ status: 'Completed', n: 2 }, { status: 'InProgress', n: 1 }]);
      storage.rebuildReadModels();
      expect(counts()).toEqual([{ status: 'Completed', n: 2 }, { status: 'InProgress', n: 1 }]);
      expect(db.prepare(`SELECT COUNT(*) FROM status_audit WHERE new_status = 'Completed'`).pluck().get()).toBe(2);
    } finally {
      storage.close();
    }
  });
});
