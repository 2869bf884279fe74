import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CommitBatch, NewTask } from '../../../server/src/storage/EngineStore.js';
import { startInstance } from '../../fixtures/server/pgInstances.js';
import { useSharedDatabase } from '../../fixtures/server/sharedDatabase.js';
import { waitFor } from '../../fixtures/waitFor.js';

const LIMIT = 2;
const WINDOW = 1000;

/** Even tasks go to the first process's queue, odd ones to the second's: both processes run attempts whatever the machine's load. */
const QUEUES = ['left', 'right'] as const;
const task = (i: number, failures: number): NewTask => ({
  id: randomUUID(), type: 'Multi.Flaky', handler: 'Multi.FlakyHandler', request: JSON.stringify({ i, failures }), queue: QUEUES[i % 2]!, taskKey: null,
  auditLevel: 'Full', createdAt: Date.now() + i, scheduledAt: null, dueAt: 0, retryPolicy: null, timeoutMs: null, rateLimitKey: null,
  isRecurring: false, recurrence: null,
});
const insertOnly = (insertTasks: NewTask[]): CommitBatch => ({
  now: Date.now(), logs: [], insertTasks, cancels: [], attemptFailures: [], completeRuns: [], serviceStopped: [], capacities: new Map(), dispatching: null,
});

/**
 * Two engine processes on one PostgreSQL database, one type limited to 2 starts per sliding second:
 * tasks that fail twice (retried 20 ms later) and fresh tasks. A retry takes its start from the
 * windows the instances share, like a first start: a retry that skipped them would start 20 ms
 * after its failure, and windows kept per process would let each process start 2 per second.
 * Each process serves a queue of its own, so both run attempts (a busy machine once let one
 * process take every claim), while the limit of the type spans the two.
 */
describe('retries and first starts share one rate limit across PostgreSQL instances', () => {
  const shared = useSharedDatabase('svc_rate_retry', 2);
  const { running } = shared;

  it('2 per second, tasks that fail twice plus fresh tasks, 2 processes: never more than 2 starts in any second', async () => {
    const { storage, store } = shared;
    // The starts as the shared windows count them: the windows drop a start once it leaves its
    // second, so the test keeps a copy of every one written.
    await storage.query(`CREATE TABLE counted_starts AS SELECT * FROM rate_limit_starts WITH NO DATA;
      CREATE FUNCTION keep_counted_start() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO counted_starts VALUES (NEW.*); RETURN NULL; END $$;
      CREATE TRIGGER keep_counted_start AFTER INSERT ON rate_limit_starts FOR EACH ROW EXECUTE FUNCTION keep_counted_start();`);
    const instances = await Promise.all(QUEUES.map((queue) => startInstance(shared.database.connectionString, { rateLimit: { limit: LIMIT, windowMs: WINDOW }, queue })));
    running.push(...instances);
    const flaky = [0, 1, 2, 3].map((i) => task(i, 2));
    await store.commit(insertOnly(flaky));
    // Fresh tasks arrive while the first retries wait for the windows: both kinds of start compete.
    const began = async () =>
      (await storage.query<{ task_id: string; at: number; message: string }>(
        `SELECT task_id, timestamp AS at, message FROM execution_logs WHERE message LIKE 'attempt % began in process %' ORDER BY timestamp`,
      )).rows;
    await waitFor(async () => (await began()).some((b) => b.message.startsWith('attempt 2 ')), 30_000, 'a first retry began');
    const fresh = [4, 5, 6, 7].map((i) => task(i, 0));
    await store.commit(insertOnly(fresh));
    const ids = [...flaky, ...fresh].map((t) => t.id);
    const completed = async () =>
      (await storage.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM tasks WHERE status = 'Completed' AND id = ANY($1::text[])`, [ids])).rows[0]!.n;
    await waitFor(async () => (await completed()) === ids.length, 60_000, 'every task Completed');
    await Promise.all(instances.map((i) => i.stop()));
    running.length = 0;

    // Every attempt began once, as each task's log shows: 3 attempts of each flaky task, 1 of each fresh one.
    const begins = await began();
    const attempts = (id: string) => begins.filter((b) => b.task_id === id).map((b) => Number(/^attempt (\d+)/.exec(b.message)![1]));
    for (const t of flaky) expect(attempts(t.id)).toEqual([1, 2, 3]);
    for (const t of fresh) expect(attempts(t.id)).toEqual([1]);
    // Both processes ran attempts (each serves its own queue): the limit held across them, not within one.
    expect(new Set(begins.map((b) => /process (\d+)$/.exec(b.message)![1])).size).toBe(2);

    const counted = (await storage.query<{ at: number }>(`SELECT started_at AS at FROM counted_starts WHERE type = 'Multi.Flaky' ORDER BY started_at`)).rows.map((r) => Number(r.at));
    // A first start is counted at its claim's instant, which the row keeps (reserved_at; its InProgress audit follows).
    const firsts = await storage.query<{ at: number; began: number }>(
      `SELECT t.reserved_at AS at, a.updated_at AS began FROM tasks t JOIN status_audit a ON a.task_id = t.id AND a.new_status = 'InProgress' WHERE t.id = ANY($1::text[])`, [ids],
    );
    expect(firsts.rows).toHaveLength(ids.length);
    for (const f of firsts.rows) {
      expect(counted).toContain(Number(f.at));
      expect(Number(f.began)).toBeGreaterThanOrEqual(Number(f.at));
    }
    // Never more than LIMIT counted starts in any sliding second: any LIMIT + 1 consecutive ones span a whole window.
    const crowded = counted.slice(LIMIT).map((last, i) => ({ first: counted[i]!, last })).filter((w) => w.last - w.first < WINDOW);
    expect(crowded).toEqual([]);
    // And no attempt began without a start counted for it: by any instant, no more attempts had begun than starts were counted.
    const outran = begins.map((b, k) => ({ at: Number(b.at), begun: k + 1, counted: counted.filter((c) => c <= Number(b.at)).length }))
      .filter((x) => x.begun > x.counted);
    expect(outran).toEqual([]);
    expect(counted.length).toBeGreaterThanOrEqual(begins.length);
  }, 120_000);
});
