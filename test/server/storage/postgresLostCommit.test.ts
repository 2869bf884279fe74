import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError, type CommitBatch, type FinishedRun, type NewExecutionLog, type NewTask } from '../../../server/src/storage/EngineStore.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, PG_ADMIN_URL, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { startsOf, tokenOf } from '../../fixtures/server/runTokens.js';

const batch = (now: number, part: Partial<CommitBatch> = {}): CommitBatch => ({
  now, logs: [], insertTasks: [], cancels: [], attemptFailures: [], completeRuns: [], serviceStopped: [], capacities: new Map(), dispatching: null, ...part,
});
const task = (i: number, extra: Partial<NewTask> = {}): NewTask => ({
  id: randomUUID(), type: 'Lost.Work', handler: 'Lost.WorkHandler', request: JSON.stringify({ i }), queue: 'default', taskKey: null, auditLevel: 'Full',
  createdAt: 1_000 + i, scheduledAt: null, dueAt: 0, retryPolicy: null, timeoutMs: null, rateLimitKey: null, isRecurring: false, recurrence: null, ...extra,
});
const end = (id: string, endedAt: number): FinishedRun => ({
  id, token: tokenOf(id), auditLevel: 'Full', endedAt, executionTimeMs: 1, outcome: 'Completed', exception: null, nextStatus: 'Completed', nextScheduledAt: null, recurring: false,
});
const line = (taskId: string, sequenceNumber: number, message: string): NewExecutionLog => ({
  taskId, timestamp: 4_000 + sequenceNumber, level: 'Information', message, exceptionDetails: null, sequenceNumber,
});
const claims = (limit: number): CommitBatch['dispatching'] => ({ promoteLimit: 0, claims: [{ queue: 'default', limit }], types: ['Lost.Work'], decide: null, reservationMs: 250 });

/**
 * A commit whose connection is lost may have been applied or not; the engine keeps the changes
 * and hands the same batch again. These tests apply a batch, then lose the connection of the
 * next commit, and check that the retried batch is reported as applied and written once.
 */
describe('PostgreSQL engine store: the commit after a lost connection', () => {
  let database: TestDatabase;
  let admin: pg.Client;
  let storage: PostgresStorage;
  let store: PostgresEngineStore;
  const count = async (sql: string, params: unknown[] = []) => (await storage.query<{ n: number }>(sql, params)).rows[0]!.n;

  /** Makes the store's next commit fail with a lost connection (server refusing connections, its connections terminated). */
  async function loseNextCommit(): Promise<void> {
    await admin.query(`ALTER DATABASE "${database.name}" ALLOW_CONNECTIONS false`);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [database.name]);
    // A commit that has something to ask of the database (an empty one sends no statement): a
    // claim in a queue that holds no rows.
    const probe = batch(5_000, { dispatching: { promoteLimit: 0, claims: [{ queue: 'lost-probe', limit: 1 }], types: ['Lost.Work'], decide: null, reservationMs: 250 } });
    const failed = await store.commit(probe).then(
      () => null,
      (err: unknown) => err,
    );
    await admin.query(`ALTER DATABASE "${database.name}" ALLOW_CONNECTIONS true`);
    expect(failed).toBeInstanceOf(StoreUnavailableError);
    expect((failed as Error).message).toMatch(/^the connection to PostgreSQL at 127\.0\.0\.1:5432\/svc_lostcommit_\w+ was lost \(.+\); retrying with backoff$/);
  }

  beforeAll(async () => {
    database = await createTestDatabase('svc_lostcommit');
    admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 2, rollupIntervalMs: 0 });
    store = createPostgresEngineStore(storage);
  });
  afterAll(async () => {
    await admin?.query(`ALTER DATABASE "${database.name}" ALLOW_CONNECTIONS true`).catch(() => undefined);
    await store?.dispose();
    await storage?.close();
    await admin?.end();
    await database?.drop();
  });

  it('new tasks stored by the lost commit are reported stored by the retry, not written twice', async () => {
    const plain = task(1);
    const keyed = task(2, { taskKey: 'lost-key' });
    const first = await store.commit(batch(2_000, { insertTasks: [plain, keyed] }));
    expect(first.inserted.map((i) => i.existing)).toEqual([false, false]);
    await loseNextCommit();
    const again = await store.commit(batch(2_000, { insertTasks: [plain, keyed] }));
    expect(again.inserted).toEqual([
      { id: plain.id, existing: false, status: 'Queued' },
      { id: keyed.id, existing: false, status: 'Queued' },
    ]);
    expect(await count(`SELECT COUNT(*) AS n FROM tasks WHERE id = ANY($1::text[])`, [[plain.id, keyed.id]])).toBe(2);
    expect(await count(`SELECT COUNT(*) AS n FROM status_audit WHERE task_id = ANY($1::text[])`, [[plain.id, keyed.id]])).toBe(2);
  });

  it('run ends stored by the lost commit count as finished on the retry, with one audit row', async () => {
    await storage.query(`DELETE FROM tasks`);
    const t = task(3);
    await store.commit(batch(2_000, { insertTasks: [t] }));
    const { claimed } = await store.commit(batch(3_000, { dispatching: claims(1) }));
    expect(claimed.map((r) => r.id)).toEqual([t.id]);
    await store.commit(batch(3_500, { startRuns: startsOf(claimed, 3_200) }));
    await store.commit(batch(4_000, { completeRuns: [end(t.id, 4_000)] }));
    await loseNextCommit();
    const again = await store.commit(batch(6_000, { completeRuns: [end(t.id, 4_000)] }));
    expect(again.finished).toEqual([true]);
    const { rows } = await storage.query(`SELECT status, run_count FROM tasks WHERE id = $1`, [t.id]);
    expect(rows).toEqual([{ status: 'Completed', run_count: 1 }]);
    expect(await count(`SELECT COUNT(*) AS n FROM status_audit WHERE task_id = $1 AND new_status = 'Completed'`, [t.id])).toBe(1);
  });

  it('a run started by a commit whose answer was lost (unknown to the engine) goes back to Queued and is reserved again; runs the engine knows stay its own', async () => {
    await storage.query(`DELETE FROM tasks`);
    const running = task(4);
    const orphan = task(5);
    await store.commit(batch(2_000, { insertTasks: [running] }));
    const { claimed } = await store.commit(batch(3_000, { dispatching: claims(1) }));
    expect(claimed.map((r) => r.id)).toEqual([running.id]);
    expect((await store.commit(batch(3_100, { startRuns: startsOf(claimed, 3_050) }))).started).toEqual([true]);
    // What a start whose answer never arrived leaves behind: InProgress under this instance, unknown to its engine.
    await store.commit(batch(3_500, { insertTasks: [orphan] }));
    await storage.query(`UPDATE tasks SET status = 'InProgress', instance_id = $1, started_at = 3500 WHERE id = $2`, [store.instanceId, orphan.id]);
    await loseNextCommit();
    const after = await store.commit(batch(7_000, { dispatching: claims(4) }));
    expect(after.claimed.map((r) => r.id)).toEqual([orphan.id]);
    const { rows } = await storage.query(`SELECT id, status, instance_id FROM tasks ORDER BY created_at`);
    expect(rows).toEqual([
      { id: running.id, status: 'InProgress', instance_id: store.instanceId },
      { id: orphan.id, status: 'Queued', instance_id: null },
    ]);
    expect(after.claimed[0]).toMatchObject({ status: 'Queued', reserved_at: 7_000 });
    const { rows: audits } = await storage.query(`SELECT new_status FROM status_audit WHERE task_id = $1 ORDER BY id`, [orphan.id]);
    expect(audits.map((a) => a.new_status)).toEqual(['Queued', 'Queued']);
  });

  it('execution log rows stored by the lost commit keep their ids on the retry and are written once; new rows are added', async () => {
    await storage.query(`DELETE FROM tasks`);
    const t = task(6);
    await store.commit(batch(2_000, { insertTasks: [t] }));
    const first = await store.commit(batch(4_000, { logs: [line(t.id, 1, 'one'), line(t.id, 2, 'two')] }));
    expect(first.logIds).toHaveLength(2);
    await loseNextCommit();
    // The engine hands the lost commit's lines again, with a line logged meanwhile.
    const again = await store.commit(batch(6_000, { logs: [line(t.id, 1, 'one'), line(t.id, 2, 'two'), line(t.id, 3, 'three')] }));
    expect(again.logIds.slice(0, 2)).toEqual(first.logIds);
    expect(again.logIds[2]).toBeGreaterThan(Math.max(...first.logIds));
    const { rows } = await storage.query(`SELECT id, sequence_number, message FROM execution_logs WHERE task_id = $1 ORDER BY id`, [t.id]);
    expect(rows).toEqual([
      { id: first.logIds[0], sequence_number: 1, message: 'one' },
      { id: first.logIds[1], sequence_number: 2, message: 'two' },
      { id: again.logIds[2], sequence_number: 3, message: 'three' },
    ]);
    // Outside a reconciling commit nothing is looked up: a line numbered like a stored one (an instance whose lease was taken over) is kept.
    const later = await store.commit(batch(7_000, { logs: [line(t.id, 3, 'three')] }));
    expect(later.logIds[0]).toBeGreaterThan(again.logIds[2]!);
  });
});
