import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CommitBatch, NewTask } from '../../../server/src/storage/EngineStore.js';
import { startInstance } from '../../fixtures/server/pgInstances.js';
import { useSharedDatabase } from '../../fixtures/server/sharedDatabase.js';

const task = (i: number): NewTask => ({
  id: randomUUID(), type: 'Multi.Limited', handler: 'Multi.LimitedHandler', request: JSON.stringify({ i }), queue: 'default', taskKey: null,
  auditLevel: 'Full', createdAt: Date.now() + i, scheduledAt: null, dueAt: 0, retryPolicy: null, timeoutMs: null, rateLimitKey: null,
  isRecurring: false, recurrence: null,
});
const insertOnly = (insertTasks: NewTask[]): CommitBatch => ({
  now: Date.now(), logs: [], insertTasks, cancels: [], attemptFailures: [], completeRuns: [], serviceStopped: [], capacities: new Map(), dispatching: null,
});

/** Engine instances in separate processes on one PostgreSQL database, one rate-limited type. */
describe('a rate limit holds across every instance on one PostgreSQL database', () => {
  const shared = useSharedDatabase('svc_rate', 2);
  const { running } = shared;

  it('3 instances, at most 6 starts per sliding second: never more than 6 starts in any second across all of them', async () => {
    const LIMIT = 6;
    const WINDOW = 1000;
    const N = 42;
    // Each instance runs at most 4 handlers at once (300 ms each), so a window's 6 starts need more
    // than one instance: a limit kept per process would let each of the 3 start 6.
    const instances = await Promise.all([0, 1, 2].map(() => startInstance(shared.database.connectionString, { handlerMs: 300, rateLimit: { limit: LIMIT, windowMs: WINDOW } })));
    running.push(...instances);
    await shared.store.commit(insertOnly(Array.from({ length: N }, (_, i) => task(i))));
    const deadline = Date.now() + 90_000;
    const completed = async () =>
      (await shared.storage.query<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks WHERE status = 'Completed'`)).rows[0]!.n;
    while ((await completed()) < N) {
      if (Date.now() > deadline) throw new Error(`timed out: ${await completed()} of ${N} Completed`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const reports = await Promise.all(instances.map((i) => i.stop()));
    running.length = 0;

    // Each task started once, and more than one instance started tasks.
    const started = reports.flatMap((r) => r.started);
    expect(started.length).toBe(N);
    expect(new Set(started).size).toBe(N);
    expect(reports.filter((r) => r.started.length > 0).length).toBeGreaterThan(1);
    // The starts as the shared windows counted them: the instant each row was taken (reserved_at).
    // Its handler begins after that commit (the InProgress audit), never before.
    const { rows } = await shared.storage.query<{ at: number; began: number }>(
      `SELECT t.reserved_at AS at, a.updated_at AS began FROM tasks t JOIN status_audit a ON a.task_id = t.id AND a.new_status = 'InProgress' ORDER BY t.reserved_at`,
    );
    expect(rows).toHaveLength(N);
    for (const r of rows) expect(r.began).toBeGreaterThanOrEqual(r.at);
    const starts = rows.map((r) => r.at);
    // Sliding window: any LIMIT + 1 consecutive starts span at least WINDOW ms.
    const crowded = starts.slice(LIMIT).map((t, i) => ({ first: starts[i]!, last: t })).filter((w) => w.last - w.first < WINDOW);
    expect(crowded).toEqual([]);
    // The limit was what paced them: 42 starts at 6 per second take at least 6 seconds.
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual(((N / LIMIT) - 1) * WINDOW);
  }, 120_000);
});
