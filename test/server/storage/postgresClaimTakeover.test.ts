import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AbandonedTask } from '../../../server/src/storage/common/abandonedRuns.js';
import type { CommitBatch, NewTask } from '../../../server/src/storage/EngineStore.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { isFastCommit } from '../../../server/src/storage/postgres/tasks/fastCommit.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { snapshotReadModels } from '../../fixtures/server/postgresReadModelSnapshot.js';
import { startsOf } from '../../fixtures/server/runTokens.js';

const MAX_ABANDONED = 3;
const HOLD_MS = 1000;

const task = (queue: string, i: number): NewTask => ({
  id: randomUUID(), type: 'Pg.Work', handler: 'Pg.WorkHandler', request: JSON.stringify({ i }), queue, taskKey: null, auditLevel: 'Full',
  createdAt: Date.now() + i, scheduledAt: null, dueAt: 0, retryPolicy: null, timeoutMs: null, rateLimitKey: null, isRecurring: false, recurrence: null,
});
const batch = (now: number, part: Partial<CommitBatch> = {}): CommitBatch => ({
  now, logs: [], insertTasks: [], cancels: [], attemptFailures: [], completeRuns: [], serviceStopped: [], capacities: new Map(), dispatching: null, ...part,
});
/** A claim of the queue's rows: the steady-state one-statement commit (no decider), or the general commit (a decider that runs every row). */
const claim = (now: number, queue: string, path: 'fast' | 'general'): CommitBatch =>
  batch(now, { dispatching: { promoteLimit: 0, claims: [{ queue, limit: 10 }], reservationMs: HOLD_MS, types: ['Pg.Work'], decide: path === 'fast' ? null : () => true } });

/**
 * An instance (this store, a lease far longer than the test) claims rows another instance had
 * reserved and never started nor handed back: its process died, maybe inside a handler whose start
 * was never written. The dead instance's lease has not lapsed, so only the takeover can count it.
 */
describe('PostgreSQL: a claim that takes over another instance\'s lapsed reservation counts an abandoned run', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  let store: PostgresEngineStore;
  const failed: AbandonedTask[] = [];
  beforeAll(async () => {
    database = await createTestDatabase('svc_claim_takeover');
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 3, rollupIntervalMs: 100_000 });
    store = createPostgresEngineStore(storage, { leaseMs: 600_000 });
    await store.recover({ now: Date.now(), unlimitedQueues: [], maxAbandoned: MAX_ABANDONED, onAbandoned: (f) => failed.push(...f) });
  });
  afterAll(async () => {
    await store?.dispose();
    await storage?.close();
    await database?.drop();
  });

  it.each(['fast', 'general'] as const)('%s commit: counted once and run, past maxAbandoned Failed (audited, event, read models); own and still-held reservations not counted', async (path) => {
    const queue = `takeover-${path}`;
    const [fresh, worn, own, held, alive] = [0, 1, 2, 3, 4].map((i) => task(queue, i)) as [NewTask, NewTask, NewTask, NewTask, NewTask];
    await store.commit(batch(Date.now(), { insertTasks: [fresh, worn, own, held, alive] }));
    const now = Date.now();
    // The dead instance has no instance row (lease recovery only looks for expired rows' reservations).
    await storage.query(`DELETE FROM engine_instances WHERE id = 'dead-one'`);
    // A live instance (its heartbeat fresh) whose reservation is as old: never taken, however old.
    await storage.query(`INSERT INTO engine_instances (id, host, pid, started_at, heartbeat_at) VALUES ('live-one', 'h', 1, $1, $1) ON CONFLICT (id) DO UPDATE SET heartbeat_at = $1`, [now]);
    await storage.query(`UPDATE tasks SET reserved_by = 'live-one', reserved_at = $2 WHERE id = $1`, [alive.id, now - 5 * HOLD_MS]);
    await storage.query(`UPDATE tasks SET reserved_by = 'dead-one', reserved_at = $2 WHERE id = ANY($1::text[])`, [[fresh.id, worn.id], now - 5 * HOLD_MS]);
    await storage.query(`UPDATE tasks SET abandoned_count = $2 WHERE id = $1`, [worn.id, MAX_ABANDONED]);
    // This instance's own stale reservation (a hand-back that never landed: no death) and a reservation that still holds.
    await storage.query(`UPDATE tasks SET reserved_by = $2, reserved_at = $3 WHERE id = $1`, [own.id, store.instanceId, now - 5 * HOLD_MS]);
    await storage.query(`UPDATE tasks SET reserved_by = 'dead-one', reserved_at = $2 WHERE id = $1`, [held.id, now]);
    expect(await store.leaseTick()).toBe(0);

    const b = claim(Date.now(), queue, path);
    expect(isFastCommit(b)).toBe(path === 'fast');
    const out = await store.commit(b);
    // The takeover ran with its count (ctx.attempt is 1 + abandoned runs); the worn row did not run.
    expect(out.claimed.map((r) => [r.id, r.abandoned_count])).toEqual([[fresh.id, 1], [own.id, 0]]);

    const { rows } = await storage.query<{ id: string; status: string; reserved_by: string | null; abandoned_count: number; run_count: number; last_outcome: string | null; exception: string | null }>(
      `SELECT id, status, reserved_by, abandoned_count, run_count, last_outcome, exception FROM tasks WHERE queue = $1`, [queue],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(fresh.id)).toMatchObject({ status: 'Queued', reserved_by: store.instanceId, abandoned_count: 1, exception: null });
    expect(byId.get(own.id)).toMatchObject({ status: 'Queued', reserved_by: store.instanceId, abandoned_count: 0 });
    expect(byId.get(held.id)).toMatchObject({ status: 'Queued', reserved_by: 'dead-one', abandoned_count: 0 });
    expect(byId.get(alive.id)).toMatchObject({ status: 'Queued', reserved_by: 'live-one', abandoned_count: 0 });
    const text = `TaskAbandonedError: The task was abandoned ${MAX_ABANDONED + 1} times while running (its process died or lost its lease)`;
    expect(byId.get(worn.id)).toEqual({ id: worn.id, status: 'Failed', reserved_by: null, abandoned_count: MAX_ABANDONED + 1, run_count: 1, last_outcome: 'Failed', exception: text });
    const audits = await storage.query<{ new_status: string; exception: string | null }>('SELECT new_status, exception FROM status_audit WHERE task_id = $1 ORDER BY id', [worn.id]);
    expect(audits.rows).toEqual([{ new_status: 'Queued', exception: null }, { new_status: 'Failed', exception: text }]);
    // The Failed event's source: the store reports the row to the engine as recovery does.
    expect(failed.filter((f) => f.id === worn.id)).toEqual([expect.objectContaining({ id: worn.id, type: 'Pg.Work', queue, exception: text })]);
    // The handlers begin: their starts, written with the next claim, count nothing more.
    const next = claim(Date.now(), queue, path);
    const started = await store.commit({ ...next, startRuns: startsOf(out.claimed, Date.now()) });
    expect(started.started).toEqual([true, true]);
    expect(started.claimed).toEqual([]);
    const after = await storage.query<{ id: string; status: string; abandoned_count: number }>(
      `SELECT id, status, abandoned_count FROM tasks WHERE id = ANY($1::text[]) ORDER BY created_at`, [[fresh.id, own.id]],
    );
    expect(after.rows).toEqual([{ id: fresh.id, status: 'InProgress', abandoned_count: 1 }, { id: own.id, status: 'InProgress', abandoned_count: 0 }]);
    const live = await snapshotReadModels(storage);
    expect(live.stat_tasks).toEqual(expect.arrayContaining([
      expect.objectContaining({ queue, status: 'Failed', n: 1 }), expect.objectContaining({ queue, status: 'InProgress', n: 2 }),
      expect.objectContaining({ queue, status: 'Queued', n: 2 }),
    ]));
    await storage.rebuildReadModels();
    expect(await snapshotReadModels(storage)).toEqual(live);
  });

  it('a worn row whose failing transaction fails stays reserved, unrun, and is Failed by the next commit', async () => {
    const queue = 'takeover-retried';
    const worn = task(queue, 0);
    await store.commit(batch(Date.now(), { insertTasks: [worn] }));
    await storage.query(`DELETE FROM engine_instances WHERE id = 'dead-one'`);
    await storage.query(`UPDATE tasks SET reserved_by = 'dead-one', reserved_at = $2, abandoned_count = $3 WHERE id = $1`, [worn.id, Date.now() - 5 * HOLD_MS, MAX_ABANDONED]);
    // While the row is listed here, the database refuses its move to Failed: the transaction after the claim fails.
    await storage.query(`CREATE TABLE refuse_failed (id text PRIMARY KEY);
      INSERT INTO refuse_failed VALUES ('${worn.id}');
      CREATE FUNCTION refuse_failed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.status = 'Failed' AND EXISTS (SELECT 1 FROM refuse_failed r WHERE r.id = NEW.id) THEN
          RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER refuse_failed BEFORE UPDATE ON tasks FOR EACH ROW EXECUTE FUNCTION refuse_failed();`);
    try {
      const out = await store.commit(claim(Date.now(), queue, 'fast'));
      expect(out.claimed).toEqual([]);
      const held = await storage.query<{ status: string; reserved_by: string | null }>('SELECT status, reserved_by FROM tasks WHERE id = $1', [worn.id]);
      expect(held.rows).toEqual([{ status: 'Queued', reserved_by: store.instanceId }]);
      expect(failed.some((f) => f.id === worn.id)).toBe(false);
      // A commit while the refusal holds fails it again; the first commit after it lifts ends the row.
      await store.commit(batch(Date.now()));
      expect((await storage.query('SELECT status FROM tasks WHERE id = $1', [worn.id])).rows).toEqual([{ status: 'Queued' }]);
      await storage.query('DELETE FROM refuse_failed');
      await store.commit(batch(Date.now()));
      const ended = await storage.query<{ status: string; reserved_by: string | null; abandoned_count: number }>('SELECT status, reserved_by, abandoned_count FROM tasks WHERE id = $1', [worn.id]);
      expect(ended.rows).toEqual([{ status: 'Failed', reserved_by: null, abandoned_count: MAX_ABANDONED + 1 }]);
      expect(failed.filter((f) => f.id === worn.id)).toHaveLength(1);
    } finally {
      await storage.query('DROP TRIGGER refuse_failed ON tasks; DROP FUNCTION refuse_failed(); DROP TABLE refuse_failed;');
    }
  });
});
