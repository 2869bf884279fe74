import BetterSqlite3, { type Database } from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { INITIAL_STATUSES, isAllowedTransition, openSqliteStorage, type TaskStatus } from '../../../server/src/index.js';
import { openScheduleHarness, type ScheduleHarness } from '../schedules/fixtures/scheduleHarness.js';
import { engineOn } from './fixtures/storeUnderTest.js';
import { closeAll, deferred, harness, waitFor } from './helpers.js';

/**
 * Every status the store writes, recorded by temporary triggers on the writer's own connection
 * (so nothing is missed, whatever the audit level), then checked against the transition table
 * of contracts/taskTransitions.ts.
 */
function recordTransitions(db: Database): () => { from: string | null; to: string }[] {
  db.exec(`CREATE TEMP TABLE seen_transitions (from_status TEXT, to_status TEXT NOT NULL);
    CREATE TEMP TRIGGER rec_insert AFTER INSERT ON main.tasks BEGIN
      INSERT INTO seen_transitions VALUES (NULL, new.status);
    END;
    CREATE TEMP TRIGGER rec_update AFTER UPDATE OF status ON main.tasks WHEN old.status IS NOT new.status BEGIN
      INSERT INTO seen_transitions VALUES (old.status, new.status);
    END;`);
  return () => db.prepare('SELECT from_status AS "from", to_status AS "to" FROM seen_transitions').all() as { from: string | null; to: string }[];
}

function violations(seen: { from: string | null; to: string }[]): string[] {
  return seen
    .filter((t) => (t.from === null ? !INITIAL_STATUSES.includes(t.to as TaskStatus) : !isAllowedTransition(t.from as TaskStatus, t.to as TaskStatus)))
    .map((t) => `${t.from ?? '(new)'} → ${t.to}`);
}

const pairs = (seen: { from: string | null; to: string }[]) => new Set(seen.map((t) => `${t.from ?? '(new)'} → ${t.to}`));

let sh: ScheduleHarness | undefined;
afterEach(async () => {
  sh?.close();
  sh = undefined;
  await closeAll();
});

describe('every status the store writes follows the transition table', () => {
  it('engine: dispatch, capacity, promotion, claims, retries, recurring, cancel, stop, recovery', async () => {
    const h = harness({ queues: { tight: { concurrency: 1, capacity: 1 } }, auditLevel: 'None' });
    const seen = recordTransitions(h.storage.db);
    const gate = deferred();
    h.engine.handle('T.Block', () => gate.promise);
    h.engine.handle('T.Ok', () => undefined);
    h.engine.handle('T.Fail', () => {
      throw new Error('no');
    }, { retry: { attempts: 2, backoffMs: 1, backoff: 'fixed' } });
    h.engine.handle('T.Hang', () => new Promise(() => undefined));
    h.engine.handle('T.Every', () => undefined);
    await h.engine.start();
    const blocker = await h.engine.dispatch('T.Block', {}, { queue: 'tight' });
    await waitFor(async () => (await h.status(blocker)) === 'InProgress');
    const filler = await h.engine.dispatch('T.Ok', {}, { queue: 'tight' });
    const waiting = await h.engine.dispatch('T.Ok', {}, { queue: 'tight' });
    const delayed = await h.engine.dispatch('T.Ok', {}, { queue: 'tight', delayMs: 20 });
    const later = await h.engine.dispatch('T.Ok', {}, { delayMs: 60_000 });
    const failing = await h.engine.dispatch('T.Fail', {});
    const every = await h.engine.recurring('T.Every', {}, { every: 20, maxRuns: 2 });
    expect(await h.engine.cancel(waiting)).toBe('Cancelled');
    expect(await h.engine.cancel(later)).toBe('Cancelled');
    await waitFor(async () => (await h.status(delayed)) === 'WaitingQueue');
    gate.resolve();
    await waitFor(async () => (await h.statuses([filler, delayed, every])).every((s) => s === 'Completed') && (await h.status(failing)) === 'Failed');
    const hanging = await h.engine.dispatch('T.Hang', {});
    await waitFor(async () => (await h.status(hanging)) === 'InProgress');
    await h.engine.stop({ graceMs: 0 });
    expect((await h.status(hanging))).toBe('ServiceStopped');
    const first = seen();
    // recovery: ServiceStopped → Queued, and a row left InProgress (a crash, simulated by the test
    // on its own connection) → Queued
    const other = new BetterSqlite3(h.file);
    other.prepare(`UPDATE tasks SET status = 'InProgress' WHERE id = ?`).run(filler);
    other.close();
    const storage2 = openSqliteStorage({ file: h.file });
    const recovered = recordTransitions(storage2.db);
    const second = engineOn(storage2, { pollIntervalMs: 20 });
    await second.start();
    await waitFor(async () => (await h.status(hanging)) === 'Queued' && (await h.status(filler)) === 'Queued');
    await second.stop({ graceMs: 0 });
    const all = [...first, ...recovered()];
    storage2.close();
    expect(violations(all)).toEqual([]);
    const covered = pairs(all);
    for (const p of [
      '(new) → Queued', '(new) → WaitingQueue', '(new) → Pending', 'Pending → Queued', 'Pending → WaitingQueue', 'Pending → Cancelled',
      'WaitingQueue → Queued', 'WaitingQueue → Cancelled', 'Queued → InProgress', 'InProgress → Completed', 'InProgress → Failed',
      'InProgress → Pending', 'InProgress → ServiceStopped', 'ServiceStopped → Queued', 'InProgress → Queued',
    ]) expect(covered, p).toContain(p);
  });

  it('durable schedules: occurrences, completion, cancel, requeue, a changed definition', async () => {
    sh = openScheduleHarness({ startAt: '2026-01-05T00:30:00Z' });
    const seen = recordTransitions(sh.db);
    const id = await sh.manager.upsert({ key: 'hourly', type: 'S.Job', cron: '0 * * * *', maxRuns: 3 });
    await sh.tick('2026-01-05T03:30:00Z'); // three catch-up occurrences, then the series is over
    const occ = sh.db.prepare('SELECT id FROM tasks WHERE parent_task_id = ? ORDER BY nominal_slot_at').pluck().all(id) as string[];
    expect(occ).toHaveLength(3);
    expect(sh.db.prepare('SELECT status FROM tasks WHERE id = ?').pluck().get(id)).toBe('Completed');
    // a changed definition with more runs brings the schedule back
    await sh.manager.upsert({ key: 'hourly', type: 'S.Job', cron: '0 * * * *', maxRuns: 10 });
    expect(sh.db.prepare('SELECT status FROM tasks WHERE id = ?').pluck().get(id)).toBe('Pending');
    // an occurrence that failed (as a worker would record it) is requeued
    const other = new BetterSqlite3(sh.file);
    other.prepare(`UPDATE tasks SET status = 'Failed' WHERE id = ?`).run(occ[0]);
    other.close();
    expect(await sh.manager.requeue(occ[0]!)).toMatchObject({ status: 'Succeeded' });
    expect(await sh.manager.cancel('hourly')).toMatchObject({ status: 'Succeeded' });

    const all = seen();
    expect(violations(all)).toEqual([]);
    const covered = pairs(all);
    for (const p of ['(new) → Pending', 'Pending → Completed', 'Completed → Pending', 'Failed → Queued', 'Pending → Cancelled']) {
      expect(covered, p).toContain(p);
    }
  });

  it('a write outside the table is caught by the same check', () => {
    expect(violations([{ from: 'Completed', to: 'InProgress' }, { from: null, to: 'InProgress' }])).toEqual([
      'Completed → InProgress', '(new) → InProgress',
    ]);
  });
});
