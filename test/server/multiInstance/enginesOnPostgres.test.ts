import { HubConnectionBuilder, HttpTransportType, LogLevel } from '@microsoft/signalr';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../fixtures/waitFor.js';
import type { SvcEvent } from '../../../server/src/contracts/index.js';
import { createEngine } from '../../../server/src/engine/Engine.js';
import type { CommitBatch, NewTask } from '../../../server/src/storage/EngineStore.js';
import { login, serve } from '../../fixtures/server/servedMonitoring.js';
import { startInstance } from '../../fixtures/server/pgInstances.js';
import { useSharedDatabase } from '../../fixtures/server/sharedDatabase.js';

const MIN = 60_000;

const task = (type: string, i: number): NewTask => ({
  id: randomUUID(), type, handler: `${type}Handler`, request: JSON.stringify({ i }), queue: 'default', taskKey: null, auditLevel: 'Full',
  createdAt: Date.now(), scheduledAt: null, dueAt: 0, retryPolicy: null, timeoutMs: null, rateLimitKey: null, isRecurring: false, recurrence: null,
});
const insertOnly = (now: number, insertTasks: NewTask[]): CommitBatch => ({
  now, logs: [], insertTasks, cancels: [], attemptFailures: [], completeRuns: [], serviceStopped: [], capacities: new Map(), dispatching: null,
});

/** Engine instances in separate processes on one PostgreSQL database (one database per test). */
describe('many engine instances on one PostgreSQL database', () => {
  const shared = useSharedDatabase('svc_multi', 4);
  const { running } = shared;
  const count = async (where: string, params: unknown[] = []) =>
    (await shared.storage.query<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks WHERE ${where}`, params)).rows[0]!.n;

  it('3 engines, 20,000 tasks: each Started and Completed exactly once', async () => {
    await shared.storage.query(`DELETE FROM tasks`);
    const N = 20_000;
    for (let k = 0; k < N; k += 2000) {
      await shared.store.commit(insertOnly(Date.now(), Array.from({ length: 2000 }, (_, i) => task('Multi.Work', k + i))));
    }
    const instances = await Promise.all([0, 1, 2].map(() => startInstance(shared.database.connectionString)));
    running.push(...instances);
    await waitFor(async () => (await count(`status = 'Completed'`)) === N, 300_000, 'every task Completed', 250);
    const reports = await Promise.all(instances.map((i) => i.stop()));
    running.length = 0;
    const started = reports.flatMap((r) => r.started);
    const completed = reports.flatMap((r) => r.completed);
    expect(started.length).toBe(N);
    expect(new Set(started).size).toBe(N);
    expect(completed.length).toBe(N);
    expect(reports.every((r) => r.started.length > 0)).toBe(true);
    expect(await count(`run_count <> 1 OR status <> 'Completed'`)).toBe(0);
    const audits = await shared.storage.query<{ n: number }>(`SELECT COUNT(*) AS n FROM status_audit WHERE new_status = 'InProgress'`);
    expect(audits.rows[0]!.n).toBe(N);
    // The counters (deltas of every instance) equal a recomputation from the rows.
    const counters = await shared.storage.query<{ status: string; n: number }>(`SELECT status, SUM(n) AS n FROM stat_tasks_v GROUP BY 1 HAVING SUM(n) <> 0`);
    expect(counters.rows).toEqual([{ status: 'Completed', n: N }]);
    await shared.storage.query(`DELETE FROM tasks`);
  }, 360_000);

  it('kill -9 of one instance mid-run: its rows re-run by the others within lease + poll, none lost, none left open', async () => {
    await shared.storage.query(`DELETE FROM tasks`);
    const N = 600;
    const ids: string[] = [];
    for (let k = 0; k < N; k += 200) {
      const batch = Array.from({ length: 200 }, (_, i) => task('Multi.Work', k + i));
      ids.push(...batch.map((t) => t.id));
      await shared.store.commit(insertOnly(Date.now(), batch));
    }
    // The victim's runs take 5 s, so the rows it holds when we look are still running when it is
    // killed, however slowly the machine gets from the look to the kill; the survivors' take 40 ms.
    const instances = await Promise.all([5000, 40, 40].map((handlerMs) => startInstance(shared.database.connectionString, { handlerMs, leaseMs: 2000 })));
    running.push(...instances);
    const victim = instances[0]!;
    await waitFor(async () => (await count(`status = 'InProgress' AND instance_id = $1`, [victim.instanceId])) > 0 && (await count(`status = 'Completed'`)) > 60, 60_000, 'the victim running', 250);
    const held = (await shared.storage.query<{ id: string }>(`SELECT id FROM tasks WHERE status = 'InProgress' AND instance_id = $1`, [victim.instanceId])).rows.map((r) => r.id);
    await victim.kill();
    running.splice(running.indexOf(victim), 1);
    const killedAt = Date.now();
    await waitFor(async () => (await count(`status = 'InProgress' AND instance_id = $1`, [victim.instanceId])) === 0, 20_000, 'its rows recovered', 250);
    // Lease 2 s, heartbeat every 2/3 s, poll 100 ms.
    expect(Date.now() - killedAt).toBeLessThan(2000 + 1000 + 2000);
    await waitFor(async () => (await count(`status = 'Completed'`)) === N, 120_000, 'every task Completed', 250);
    const reports = await Promise.all(running.map((i) => i.stop()));
    running.length = 0;
    expect(await count(`status NOT IN ('Completed', 'Failed', 'Cancelled')`)).toBe(0);
    // The rows the victim held when it died (re-queued by lease recovery: a Queued audit after an
    // InProgress one) were started again by a survivor; a row it finished between the look above
    // and the kill ran once.
    const rerun = new Set(reports.flatMap((r) => r.started));
    expect(held.length).toBeGreaterThan(0);
    const { rows: history } = await shared.storage.query<{ task_id: string; statuses: string[] }>(
      `SELECT task_id, array_agg(new_status ORDER BY id) AS statuses FROM status_audit WHERE task_id = ANY($1::text[]) GROUP BY task_id`,
      [held],
    );
    const recovered = history.filter((h) => h.statuses.join() === 'Queued,InProgress,Queued,InProgress,Completed').map((h) => h.task_id);
    const finishedByVictim = history.filter((h) => h.statuses.join() === 'Queued,InProgress,Completed').map((h) => h.task_id);
    expect(recovered.length).toBeGreaterThan(0);
    expect(recovered.length + finishedByVictim.length).toBe(held.length);
    for (const id of recovered) expect(rerun.has(id)).toBe(true);
    for (const id of finishedByVictim) expect(rerun.has(id)).toBe(false);
    await shared.storage.query(`DELETE FROM tasks`);
  }, 200_000);

  it('2 instances materialize 1,000 schedules after downtime: every missed slot once, none lost', async () => {
    await shared.storage.query(`DELETE FROM tasks`);
    const planner = createEngine({ store: shared.store, onError: () => undefined });
    const now = Date.now();
    const start = Math.floor(now / MIN) * MIN - 10 * MIN;
    const scheduleIds: string[] = [];
    for (let i = 0; i < 1000; i++) {
      scheduleIds.push(
        await planner.schedules.upsert({ key: `multi-${i}`, type: 'Multi.Scheduled', every: '1m', startAt: new Date(start), misfire: { policy: 'ReplayAll', overflowCap: 100 } }),
      );
    }
    // Downtime: every cursor back before the first slot. (11,000 missed slots: the catch-up writes
    // them as compact Pending occurrences, each a task row once promoted; both forms are counted.)
    await shared.storage.query(`UPDATE tasks SET cursor_at = $1, scheduled_at = $2 WHERE id = ANY($3::text[])`, [start - 1, start, scheduleIds]);
    const instances = await Promise.all([0, 1].map(() => startInstance(shared.database.connectionString)));
    running.push(...instances);
    await waitFor(async () => (await count(`parent_task_id IS NULL AND is_recurring = 1 AND scheduled_at <= $1`, [now])) === 0, 120_000, 'every schedule caught up', 250);
    await Promise.all(instances.map((i) => i.stop()));
    running.length = 0;
    const perSchedule = await shared.storage.query<{ parent: string; n: number; first: number; last: number; distinct_slots: number }>(
      `SELECT parent_task_id AS parent, COUNT(*) AS n, MIN(nominal_slot_at) AS first, MAX(nominal_slot_at) AS last,
              COUNT(DISTINCT nominal_slot_at) AS distinct_slots
         FROM (SELECT parent_task_id, nominal_slot_at FROM tasks
               UNION ALL SELECT parent_task_id, nominal_slot_at FROM pending_occurrence_tasks) AS occurrences
        WHERE parent_task_id = ANY($1::text[]) GROUP BY 1`,
      [scheduleIds],
    );
    expect(perSchedule.rows).toHaveLength(1000);
    for (const r of perSchedule.rows) {
      expect(r.first).toBe(start);
      expect(r.n).toBe(r.distinct_slots);
      expect(r.n).toBe((r.last - r.first) / MIN + 1);
      expect(r.last).toBeGreaterThanOrEqual(Math.floor(now / MIN) * MIN);
    }
    await shared.storage.query(`DELETE FROM pending_occurrences`);
    await shared.storage.query(`DELETE FROM tasks`);
  }, 200_000);

  it('a hub connected to instance A receives the events of a task run by instance B', async () => {
    const engineA = createEngine({ store: shared.store, pollIntervalMs: 100, onError: () => undefined });
    engineA.handle('Multi.Local', async () => {});
    await engineA.start();
    const b = await startInstance(shared.database.connectionString);
    running.push(b);
    const s = await serve({ engine: engineA, storage: shared.storage }, { loginRateLimit: false });
    try {
      const token = await login(s.api);
      const events: SvcEvent[] = [];
      const connection = new HubConnectionBuilder()
        .withUrl(`${s.baseUrl}/svc-monitoring/hub`, { transport: HttpTransportType.WebSockets, accessTokenFactory: () => token })
        .configureLogging(LogLevel.None)
        .build();
      let id = '';
      const completed = new Promise<void>((resolve) =>
        connection.on('SvcEvent', (e: SvcEvent) => {
          events.push(e);
          if (e.kind === 'Completed' && e.taskId === id) resolve();
        }),
      );
      await connection.start();
      await shared.storage.events.ready();
      // Stored through A's store; A has no handler for the type, so B runs it.
      const remote = task('Multi.Remote', 0);
      id = remote.id;
      await shared.store.commit(insertOnly(Date.now(), [remote]));
      await completed;
      await connection.stop();
      expect(events.filter((e) => e.taskId === id).map((e) => e.kind)).toEqual(['Started', 'Completed']);
      expect((await shared.storage.query<{ instance_id: string | null; status: string }>(`SELECT status FROM tasks WHERE id = $1`, [id])).rows[0]!.status).toBe('Completed');
    } finally {
      await s.close();
      await engineA.stop();
      await b.stop();
      running.splice(running.indexOf(b), 1);
    }
  }, 60_000);
});
