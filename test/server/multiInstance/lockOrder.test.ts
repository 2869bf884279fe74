import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommitBatch, NewTask } from '../../../server/src/storage/EngineStore.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';

const task = (queue: string, taskKey: string | null = null): NewTask => ({
  id: randomUUID(), type: 'Lock.Work', handler: 'Lock.WorkHandler', request: '{}', queue, taskKey, auditLevel: 'Full',
  createdAt: Date.now(), scheduledAt: null, dueAt: 0, retryPolicy: null, timeoutMs: null, rateLimitKey: null, isRecurring: false, recurrence: null,
});

describe('one lock order on PostgreSQL', () => {
  let database: TestDatabase;
  let storage: PostgresStorage;
  const stores: PostgresEngineStore[] = [];
  beforeAll(async () => {
    database = await createTestDatabase('svc_locks');
    storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 12 });
  });
  afterAll(async () => {
    for (const s of stores) await s.dispose();
    await storage?.close();
    await database?.drop();
  });

  it('two instances with two capped queues and crossing dispatches finish without a deadlock error', async () => {
    const a = createPostgresEngineStore(storage);
    const b = createPostgresEngineStore(storage);
    stores.push(a, b);
    const capacities = new Map([['alpha', 50], ['beta', 50]]);
    const commit = (store: PostgresEngineStore, queues: [string, string], round: number): Promise<unknown> => {
      // Keyed rows too: a task key's row lock is taken after the queue locks like every other lock.
      const insertTasks = [task(queues[0], `k-${round}`), task(queues[1])];
      const batch: CommitBatch = {
        now: Date.now(), logs: [], insertTasks, cancels: [], attemptFailures: [], completeRuns: [], serviceStopped: [], capacities, dispatching: null,
      };
      return store.commit(batch);
    };
    const ROUNDS = 60;
    // Five rounds at a time (ten transactions in flight: what the pool holds).
    const results: PromiseSettledResult<unknown>[] = [];
    for (let from = 0; from < ROUNDS; from += 5) {
      results.push(...(await Promise.allSettled(
        Array.from({ length: 5 }, (_, i) => [commit(a, ['alpha', 'beta'], from + i), commit(b, ['beta', 'alpha'], from + i)]).flat(),
      )));
    }
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => String((r.reason as Error).message));
    expect(refused).toEqual([]);
    const { rows } = await storage.query<{ queue: string; status: string; n: number }>(
      `SELECT queue, status, COUNT(*)::int AS n FROM tasks GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    // Each round's keyed rows share a key (one row per key, in whichever queue won); the capacity holds across both instances.
    const n = (queue: string, status: string) => rows.find((r) => r.queue === queue && r.status === status)?.n ?? 0;
    expect([n('alpha', 'Queued'), n('beta', 'Queued')]).toEqual([50, 50]);
    expect(n('alpha', 'WaitingQueue') + n('beta', 'WaitingQueue')).toBe(ROUNDS * 3 - 100);
  }, 60_000);
});
