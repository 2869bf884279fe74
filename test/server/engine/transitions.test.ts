import { afterEach, describe, expect, it } from 'vitest';
import { INITIAL_STATUSES, isAllowedWrite, type TaskStatus } from '../../../server/src/index.js';
import { openScheduleHarness, type ScheduleHarness } from '../../fixtures/server/scheduleHarness.js';
import type { StoreUnderTest } from '../../fixtures/server/storeUnderTest.js';
import { closeAll, deferred, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

type Transition = { from: string | null; to: string };

/** What a recording of a store's status writes gives back. */
interface TransitionRecorder {
  /** Every status written since the recording started (on SQLite: on this handle's connection). */
  seen(): Promise<Transition[]>;
  /** Runs a write of the test itself (what a crash or a worker leaves behind) without recording it. */
  unrecorded(write: () => Promise<void>): Promise<void>;
}

/**
 * Every status the store writes, recorded by triggers (so nothing is missed, whatever the audit
 * level), then checked against the transition table of contracts/taskTransitions.ts (a
 * transition, or one of its two-step writes: a run's start and end in one write). SQLite:
 * temporary triggers on the handle's own connection (the writer). PostgreSQL: row triggers in
 * the store's schema, seen by every connection of every engine instance; a recording reads the
 * rows written after it started.
 */
async function recordTransitions(sut: StoreUnderTest): Promise<TransitionRecorder> {
  const sqlite = sut.sqlite;
  if (sqlite !== undefined) {
    const triggers = `
      CREATE TEMP TRIGGER rec_insert AFTER INSERT ON main.tasks BEGIN
        INSERT INTO seen_transitions VALUES (NULL, new.status);
      END;
      CREATE TEMP TRIGGER rec_update AFTER UPDATE OF status ON main.tasks WHEN old.status IS NOT new.status BEGIN
        INSERT INTO seen_transitions VALUES (old.status, new.status);
      END;`;
    sqlite.db.exec(`CREATE TEMP TABLE seen_transitions (from_status TEXT, to_status TEXT NOT NULL); ${triggers}`);
    return {
      seen: async () => sqlite.db.prepare('SELECT from_status AS "from", to_status AS "to" FROM seen_transitions').all() as Transition[],
      async unrecorded(write) {
        sqlite.db.exec('DROP TRIGGER temp.rec_insert; DROP TRIGGER temp.rec_update;');
        try {
          await write();
        } finally {
          sqlite.db.exec(triggers);
        }
      },
    };
  }
  await sut.probe.run(`
    CREATE TABLE IF NOT EXISTS seen_transitions (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, from_status TEXT, to_status TEXT NOT NULL);
    CREATE OR REPLACE FUNCTION rec_transition() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO seen_transitions (from_status, to_status) VALUES (NULL, NEW.status);
      ELSE
        INSERT INTO seen_transitions (from_status, to_status) VALUES (OLD.status, NEW.status);
      END IF;
      RETURN NULL;
    END $fn$;
    CREATE OR REPLACE TRIGGER rec_insert AFTER INSERT ON tasks FOR EACH ROW EXECUTE FUNCTION rec_transition();
    CREATE OR REPLACE TRIGGER rec_update AFTER UPDATE OF status ON tasks FOR EACH ROW
      WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION rec_transition();`);
  const since = (await sut.probe.value<number | null>('SELECT MAX(id) FROM seen_transitions')) ?? 0;
  return {
    seen: () => sut.probe.rows<Transition>('SELECT from_status AS "from", to_status AS "to" FROM seen_transitions WHERE id > ? ORDER BY id', since),
    async unrecorded(write) {
      await sut.probe.run('ALTER TABLE tasks DISABLE TRIGGER rec_insert, DISABLE TRIGGER rec_update');
      try {
        await write();
      } finally {
        await sut.probe.run('ALTER TABLE tasks ENABLE TRIGGER rec_insert, ENABLE TRIGGER rec_update');
      }
    },
  };
}

function violations(seen: Transition[]): string[] {
  return seen
    .filter((t) => (t.from === null ? !INITIAL_STATUSES.includes(t.to as TaskStatus) : !isAllowedWrite(t.from as TaskStatus, t.to as TaskStatus)))
    .map((t) => `${t.from ?? '(new)'} → ${t.to}`);
}

const pairs = (seen: Transition[]) => new Set(seen.map((t) => `${t.from ?? '(new)'} → ${t.to}`));

let sh: ScheduleHarness | undefined;
afterEach(async () => {
  await sh?.close();
  sh = undefined;
  await closeAll();
});

describe('every status the store writes follows the transition table', () => {
  it('engine: dispatch, capacity, promotion, claims, retries, recurring, cancel, stop, recovery', async () => {
    const h = harness({ queues: { tight: { concurrency: 1, capacity: 1 } }, auditLevel: 'None' });
    const recorder = await recordTransitions(h.sut);
    const gate = deferred();
    h.engine.handle('T.Block', () => gate.promise);
    h.engine.handle('T.Ok', () => undefined);
    h.engine.handle('T.Fail', () => {
      throw new Error('no');
    }, { retry: { attempts: 2, backoffMs: 1, backoff: 'fixed' } });
    // Given up at once by a stop without grace (ServiceStopped); it then honours its abort.
    h.engine.handle('T.Hang', (_r, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)));
    h.engine.handle('T.Every', () => undefined);
    await h.engine.start();
    const blocker = await h.engine.dispatch('T.Block', {}, { queue: 'tight' });
    await waitFor(async () => (await h.status(blocker)) === 'InProgress');
    const filler = await h.engine.dispatch('T.Ok', {}, { queue: 'tight' });
    const waiting = await h.engine.dispatch('T.Ok', {}, { queue: 'tight' });
    // Due later than the commit that writes it, however loaded the machine: created Pending, then
    // WaitingQueue behind the blocker (a delay shorter than the commit would create it waiting).
    const delayed = await h.engine.dispatch('T.Ok', {}, { queue: 'tight', delayMs: 1500 });
    const later = await h.engine.dispatch('T.Ok', {}, { delayMs: 60_000 });
    const failing = await h.engine.dispatch('T.Fail', {});
    const every = await h.engine.recurring('T.Every', {}, { every: 20, maxRuns: 2 });
    expect(await h.engine.cancel(waiting)).toBe('Cancelled');
    expect(await h.engine.cancel(later)).toBe('Cancelled');
    await waitFor(async () => (await h.status(delayed)) === 'WaitingQueue', 15_000);
    gate.resolve();
    await waitFor(async () => (await h.statuses([filler, delayed, every])).every((s) => s === 'Completed') && (await h.status(failing)) === 'Failed');
    const hanging = await h.engine.dispatch('T.Hang', {});
    await waitFor(async () => (await h.status(hanging)) === 'InProgress');
    await h.engine.stop({ graceMs: 0 });
    expect((await h.status(hanging))).toBe('ServiceStopped');
    const first = await recorder.seen();
    // recovery: ServiceStopped → Queued, and a row left InProgress (a crash, simulated by the test
    // outside the recording) → Queued
    await recorder.unrecorded(() => h.probe.run(`UPDATE tasks SET status = 'InProgress' WHERE id = ?`, filler));
    // The stopped process closes its store (on PostgreSQL its instance row goes): its rows are free.
    await h.sut.close();
    const restarted = h.sut.reopen();
    const recovered = await recordTransitions(restarted);
    const second = restarted.engine({ pollIntervalMs: 20 });
    await second.start();
    await waitFor(async () => (await restarted.probe.status(hanging)) === 'Queued' && (await restarted.probe.status(filler)) === 'Queued');
    await second.stop({ graceMs: 0 });
    const all = [...first, ...(await recovered.seen())];
    await restarted.close();
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
    const recorder = await recordTransitions(sh.sut);
    const id = await sh.manager.upsert({ key: 'hourly', type: 'S.Job', cron: '0 * * * *', maxRuns: 3 });
    await sh.tick('2026-01-05T03:30:00Z'); // three catch-up occurrences, then the series is over
    const occ = await sh.probe.values<string>('SELECT id FROM tasks WHERE parent_task_id = ? ORDER BY nominal_slot_at', id);
    expect(occ).toHaveLength(3);
    expect(await sh.probe.status(id)).toBe('Completed');
    // a changed definition with more runs brings the schedule back
    await sh.manager.upsert({ key: 'hourly', type: 'S.Job', cron: '0 * * * *', maxRuns: 10 });
    expect(await sh.probe.status(id)).toBe('Pending');
    // an occurrence that failed (as a worker would record it, outside the recording) is requeued
    await recorder.unrecorded(() => sh!.probe.run(`UPDATE tasks SET status = 'Failed' WHERE id = ?`, occ[0]));
    expect(await sh.manager.requeue(occ[0]!)).toMatchObject({ status: 'Succeeded' });
    expect(await sh.manager.cancel('hourly')).toMatchObject({ status: 'Succeeded' });

    const all = await recorder.seen();
    expect(violations(all)).toEqual([]);
    const covered = pairs(all);
    for (const p of ['(new) → Pending', 'Pending → Completed', 'Completed → Pending', 'Failed → Queued', 'Pending → Cancelled']) {
      expect(covered, p).toContain(p);
    }
  });

  it('a write outside the table is caught by the same check', () => {
    expect(violations([{ from: 'Completed', to: 'InProgress' }, { from: null, to: 'InProgress' }, { from: 'Queued', to: 'ServiceStopped' }])).toEqual([
      'Completed → InProgress', '(new) → InProgress', 'Queued → ServiceStopped',
    ]);
    // a run's start and end written as one change of its row passes; no other skip does
    expect(violations([{ from: 'Queued', to: 'Completed' }, { from: 'WaitingQueue', to: 'Completed' }])).toEqual(['WaitingQueue → Completed']);
  });
});
