import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FinishedRun, NewTask, RunnableTaskRow } from '../../../server/src/storage/EngineStore.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { commitBatch } from '../../fixtures/server/commitBatches.js';
import { snapshotReadModels } from '../../fixtures/server/postgresReadModelSnapshot.js';
import { startsOf, tokenOf } from '../../fixtures/server/runTokens.js';

const HOUR = 3_600_000;

/**
 * The engine's steady-state commit (run starts and ends + reservations in one statement) appends the read-model
 * deltas itself while the UPDATE triggers step aside: after many such commits the read models
 * must still equal a recomputation from the rows.
 */
describe('PostgreSQL fast group commits keep the read models', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  let store: PostgresEngineStore;
  beforeAll(async () => {
    database = await createTestDatabase('svc_fastrm');
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 2, rollupIntervalMs: 0 });
    store = createPostgresEngineStore(storage);
  });
  afterAll(async () => {
    await store?.dispose();
    await storage?.close();
    await database?.drop();
  });

  it('run starts and ends (completed, failed, cancelled, recurring next run) and reservations over many commits equal a recomputation', async () => {
    const base = Date.now() - 30 * HOUR;
    const tasks: NewTask[] = Array.from({ length: 240 }, (_, i) => ({
      id: randomUUID(), type: ['Fast.A', 'Fast.B', 'Fast.C'][i % 3]!, handler: 'h', request: JSON.stringify({ i }), queue: i % 4 === 0 ? 'mail' : 'default',
      taskKey: null, auditLevel: 'Full', createdAt: base + i * 7 * 60_000, scheduledAt: null, dueAt: 0, retryPolicy: null, timeoutMs: null,
      rateLimitKey: null, isRecurring: false, recurrence: null,
    }));
    await store.commit(commitBatch(base + 31 * HOUR, { insertTasks: tasks }));
    // An inline recurring row made due: it runs and becomes Pending again.
    await storage.query(`UPDATE tasks SET is_recurring = 1 WHERE id = ANY($1::text[])`, [tasks.filter((_, i) => i % 10 === 5).map((t) => t.id)]);
    const before = await snapshotReadModels(storage);
    // Rows reserved by the last commit start in this one: half of them also end here (a short run),
    // the other half end in the next commit.
    let reserved: RunnableTaskRow[] = [];
    let running: RunnableTaskRow[] = [];
    let k = 0;
    let commits = 0;
    for (;;) {
      const now = base + 31 * HOUR + commits * 97_000;
      const starting = reserved;
      const ending = [...running, ...reserved.filter((_, i) => i % 2 === 0)];
      running = reserved.filter((_, i) => i % 2 === 1);
      const runs: FinishedRun[] = ending.map((r): FinishedRun => {
        const run = (x: Omit<FinishedRun, 'id' | 'token' | 'auditLevel' | 'endedAt'>): FinishedRun => ({ id: r.id, token: tokenOf(r.id), auditLevel: 'Full', endedAt: now, ...x });
        const kind = k++ % 5;
        const recurring = r.is_recurring === 1;
        if (recurring) return run({ executionTimeMs: 3, outcome: 'Completed', exception: null, nextStatus: 'Pending', nextScheduledAt: now + HOUR, recurring: true });
        if (kind === 1) {
          return run({ executionTimeMs: 0, outcome: 'Failed', exception: `Error: order ${k} rejected\n  at x`, nextStatus: 'Failed', nextScheduledAt: null, recurring: false });
        }
        if (kind === 2) return run({ executionTimeMs: 0, outcome: 'Cancelled', exception: null, nextStatus: 'Cancelled', nextScheduledAt: null, recurring: false });
        return run({ executionTimeMs: 1.5 + (k % 7), outcome: 'Completed', exception: null, nextStatus: 'Completed', nextScheduledAt: null, recurring: false });
      });
      const out = await store.commit(commitBatch(now, {
        startRuns: startsOf(starting, now - 1),
        completeRuns: runs,
        dispatching: {
          promoteLimit: 0, claims: [{ queue: 'default', limit: 5 }, { queue: 'mail', limit: 3 }], types: ['Fast.A', 'Fast.B', 'Fast.C'], decide: null,
          reservationMs: 250,
        },
      }));
      commits++;
      expect(out.started.every(Boolean)).toBe(true);
      expect(out.finished.every(Boolean)).toBe(true);
      reserved = out.claimed;
      if (reserved.length === 0 && running.length === 0) break;
    }
    expect(commits).toBeGreaterThan(30);
    const live = await snapshotReadModels(storage);
    expect(live).not.toEqual(before);
    await storage.rebuildReadModels();
    const rebuilt = await snapshotReadModels(storage);
    expect(live).toEqual(rebuilt);
    expect(live.failure_groups_hour!.length).toBeGreaterThan(0);
    expect(live.stat_runs_hour!.length).toBeGreaterThan(5);
    expect((live.stat_tasks as { status: string }[]).map((r) => r.status)).toEqual(expect.arrayContaining(['Completed', 'Failed', 'Cancelled', 'Pending']));
  });

  it('a stale run end (the row recovered and started again elsewhere), in the commit that also starts and reserves: not finished, nothing written for it', async () => {
    const t0 = Date.now() - HOUR;
    const tasks: NewTask[] = Array.from({ length: 4 }, (_, i) => ({
      id: randomUUID(), type: 'Fast.Lost', handler: 'h', request: JSON.stringify({ i }), queue: 'default', taskKey: null, auditLevel: 'Full',
      createdAt: t0 + i, scheduledAt: null, dueAt: 0, retryPolicy: null, timeoutMs: null, rateLimitKey: null, isRecurring: false, recurrence: null,
    }));
    const [a, b, c, d] = tasks.map((t) => t.id);
    await store.commit(commitBatch(t0 + 10, { insertTasks: tasks }));
    const claim = { promoteLimit: 0, claims: [{ queue: 'default', limit: 2 }], types: ['Fast.Lost'], decide: null, reservationMs: 250 };
    const first = await store.commit(commitBatch(t0 + 20, { dispatching: claim }));
    expect(first.claimed.map((r) => [r.id, r.status, r.reserved_at])).toEqual([[a, 'Queued', t0 + 20], [b, 'Queued', t0 + 20]]);
    const began = await store.commit(commitBatch(t0 + 25, { startRuns: startsOf(first.claimed, t0 + 22) }));
    expect(began.started).toEqual([true, true]);
    // Another instance recovered b (this one's lease lapsed) and started it under its own run.
    await storage.query(`UPDATE tasks SET instance_id = 'other-instance', run_token = 'other-run', started_at = $2 WHERE id = $1`, [b, t0 + 27]);
    const end = (id: string): FinishedRun => ({
      id, token: tokenOf(id), auditLevel: 'Full', endedAt: t0 + 30, executionTimeMs: 2, outcome: 'Completed', exception: null, nextStatus: 'Completed',
      nextScheduledAt: null, recurring: false,
    });
    const second = await store.commit(commitBatch(t0 + 30, { completeRuns: [end(a!), end(b!)], dispatching: claim }));
    expect(second.finished).toEqual([true, false]);
    expect(second.claimed.map((r) => [r.id, r.status, r.last_log_sequence])).toEqual([[c, 'Queued', 0], [d, 'Queued', 0]]);
    const third = await store.commit(commitBatch(t0 + 40, { startRuns: startsOf(second.claimed, t0 + 33) }));
    expect(third.started).toEqual([true, true]);
    const { rows } = await storage.query<{ id: string; status: string; instance_id: string | null; started_at: number | null; last_execution_at: number | null; run_count: number; run_token: string | null }>(
      `SELECT id, status, instance_id, started_at, last_execution_at, run_count, run_token FROM tasks WHERE id = ANY($1::text[]) ORDER BY created_at`, [[a, b, c, d]],
    );
    expect(rows).toEqual([
      { id: a, status: 'Completed', instance_id: null, started_at: t0 + 22, last_execution_at: t0 + 30, run_count: 1, run_token: tokenOf(a!) },
      { id: b, status: 'InProgress', instance_id: 'other-instance', started_at: t0 + 27, last_execution_at: null, run_count: 0, run_token: 'other-run' },
      { id: c, status: 'InProgress', instance_id: store.instanceId, started_at: t0 + 33, last_execution_at: null, run_count: 0, run_token: tokenOf(c!) },
      { id: d, status: 'InProgress', instance_id: store.instanceId, started_at: t0 + 33, last_execution_at: null, run_count: 0, run_token: tokenOf(d!) },
    ]);
    const audits = await storage.query<{ task_id: string; updated_at: number; new_status: string }>(
      `SELECT task_id, updated_at, new_status FROM status_audit WHERE task_id = ANY($1::text[]) AND new_status <> 'Queued' ORDER BY id`, [[a, b, c, d]],
    );
    expect(audits.rows).toEqual([
      { task_id: a, updated_at: t0 + 22, new_status: 'InProgress' },
      { task_id: b, updated_at: t0 + 22, new_status: 'InProgress' },
      { task_id: a, updated_at: t0 + 30, new_status: 'Completed' },
      { task_id: c, updated_at: t0 + 33, new_status: 'InProgress' },
      { task_id: d, updated_at: t0 + 33, new_status: 'InProgress' },
    ]);
    const live = await snapshotReadModels(storage);
    await storage.rebuildReadModels();
    expect(live).toEqual(await snapshotReadModels(storage));
  });
});
