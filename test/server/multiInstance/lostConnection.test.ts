import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../fixtures/waitFor.js';
import type { SvcEvent } from '../../../server/src/contracts/index.js';
import { createEngine } from '../../../server/src/engine/Engine.js';
import type { Engine, EngineHealth } from '../../../server/src/engine/types.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, PG_ADMIN_URL, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';

const N = 3000;
const LATE = 500;

describe('an engine on PostgreSQL whose connections are terminated mid-run', () => {
  let database: TestDatabase;
  let admin: pg.Client;
  let storage: PostgresStorage;
  let store: PostgresEngineStore;
  let engine: Engine;
  const started = new Map<string, number>();
  const completed = new Map<string, number>();
  const errors: Error[] = [];
  let completedCount = 0;
  let onCompleted: (() => void) | undefined;

  beforeAll(async () => {
    database = await createTestDatabase('svc_lost');
    admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 4 });
    store = createPostgresEngineStore(storage);
    engine = createEngine({ store, queues: { default: { concurrency: 4 } }, auditLevel: 'Full', pollIntervalMs: 50, onError: () => undefined });
    engine.handle('Lost.Work', () => new Promise<void>((r) => setImmediate(r)));
    engine.on('event', (e: SvcEvent) => {
      if (e.kind === 'Started') started.set(e.taskId, (started.get(e.taskId) ?? 0) + 1);
      if (e.kind === 'Completed') {
        completed.set(e.taskId, (completed.get(e.taskId) ?? 0) + 1);
        completedCount++;
        onCompleted?.();
      }
    });
    engine.on('error', (err) => errors.push(err));
    await engine.start();
  });
  afterAll(async () => {
    await admin?.query(`ALTER DATABASE "${database.name}" ALLOW_CONNECTIONS true`).catch(() => undefined);
    await engine?.stop();
    await store?.dispose();
    await storage?.close();
    await admin?.end();
    await database?.drop();
  });

  it('retries with backoff, reports degraded then ok, and ends every task exactly once', async () => {
    const ids = await Promise.all(Array.from({ length: N }, (_, i) => engine.dispatch('Lost.Work', { i })));
    // Mid-run: a third of the tasks completed.
    await new Promise<void>((resolve) => {
      onCompleted = () => {
        if (completedCount >= N / 3) resolve();
      };
    });
    onCompleted = undefined;
    // No new connection may be made for now, and every connection of the engine is terminated.
    await admin.query(`ALTER DATABASE "${database.name}" ALLOW_CONNECTIONS false`);
    const { rows: killed } = await admin.query<{ ok: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
      [database.name],
    );
    expect(killed.length).toBeGreaterThan(0);
    // Dispatches made while the server refuses connections wait in memory and are written later.
    const late = Promise.all(Array.from({ length: LATE }, (_, i) => engine.dispatch('Lost.Work', { late: i })));
    const degraded = await waitFor(() => { const h: EngineHealth = engine.health(); return h.status === 'degraded' ? h : undefined; }, 60_000, 'degraded health', 20);
    expect(degraded.status === 'degraded' && degraded.reason).toMatch(/Writes are failing: .*PostgreSQL at 127\.0\.0\.1:5432/);
    expect(errors.length).toBeGreaterThan(0);

    await admin.query(`ALTER DATABASE "${database.name}" ALLOW_CONNECTIONS true`);
    const lateIds = await late;
    const all = [...ids, ...lateIds];
    await waitFor(() => completedCount >= all.length, 60_000, 'every task completed', 20);
    await waitFor(() => engine.health().status === 'ok', 60_000, 'health back to ok', 20);

    // Each task started and completed exactly once, as the events tell and the rows show.
    expect(new Set(all).size).toBe(N + LATE);
    expect(all.filter((id) => completed.get(id) !== 1)).toEqual([]);
    expect(all.filter((id) => started.get(id) !== 1)).toEqual([]);
    expect(completed.size).toBe(N + LATE);
    const { rows } = await storage.query<{ status: string; run_count: number; n: number }>(
      `SELECT status, run_count, COUNT(*) AS n FROM tasks GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    expect(rows).toEqual([{ status: 'Completed', run_count: 1, n: N + LATE }]);
    const { rows: audits } = await storage.query<{ n: number; tasks: number }>(
      `SELECT COUNT(*) AS n, COUNT(DISTINCT task_id) AS tasks FROM status_audit WHERE new_status = 'Completed'`,
    );
    expect(audits[0]).toEqual({ n: N + LATE, tasks: N + LATE });
    // Its waits allow a minute each: 3,500 tasks, a lost connection and the retries take 15 s on a
    // quiet machine and more than the 30 s default beside other files on a loaded one.
  }, 180_000);
});
