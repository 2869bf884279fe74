import { describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { createEngine } from '../../../server/src/engine/Engine.js';
import { startInstance } from '../../fixtures/server/pgInstances.js';
import { useSharedDatabase } from '../../fixtures/server/sharedDatabase.js';
import { waitFor } from '../../fixtures/waitFor.js';

const LEASE_MS = 2000;
/** A heartbeat's period (a third of the lease), plus the wake and claim after the recovery: the slack on "within one lease". */
const SLACK_MS = LEASE_MS / 3 + 1000;
const realNow = () => performance.timeOrigin + performance.now();

/**
 * Scale-in on PostgreSQL: an instance stopped while a handler that ignores its abort still runs
 * leaves the row ServiceStopped. A live instance takes it once that instance is gone (its lease
 * lapsed, or its row removed at a clean stop), within one lease, and never while its lease is
 * alive: the handler may still run there.
 */
describe('scale-in on PostgreSQL: a ServiceStopped row is handed over once its instance is gone, never before', () => {
  const shared = useSharedDatabase('svc_scale_in', 3);
  const row = async (id: string) =>
    (await shared.storage.query<{ status: string; instance_id: string | null; abandoned_count: number }>(
      `SELECT status, instance_id, abandoned_count FROM tasks WHERE id = $1`, [id],
    )).rows[0]!;
  const audits = async (id: string) =>
    (await shared.storage.query<{ new_status: string }>(`SELECT new_status FROM status_audit WHERE task_id = $1 ORDER BY id`, [id])).rows.map((r) => r.new_status);
  // Dispatched from this process (its engine never starts, so never runs it).
  const dispatch = () => createEngine({ store: shared.store, onError: () => undefined }).handle('Multi.Stubborn', () => undefined).dispatch('Multi.Stubborn', {});

  it('A and B running, a long task on A, A stopped (grace 500 ms, the handler ignores its abort), nothing else starts: B runs it within one lease, after A ended', async () => {
    const a = await startInstance(shared.database.connectionString, { handlerMs: 60_000, leaseMs: LEASE_MS, graceMs: 500 });
    shared.running.push(a);
    const id = await dispatch();
    await waitFor(async () => (await row(id)).status === 'InProgress', 15_000, 'A to start the run', 20);
    const b = await startInstance(shared.database.connectionString, { handlerMs: 50, leaseMs: LEASE_MS });
    shared.running.push(b);
    const reportA = await a.stop();
    const aEnded = realNow();
    expect(reportA.began.map((x) => x.id)).toEqual([id]);
    await waitFor(async () => (await row(id)).status === 'Completed', LEASE_MS + SLACK_MS + 5000, 'B to run the row A left', 20);
    const reportB = await b.stop();
    const beganB = reportB.began.filter((x) => x.id === id);
    expect(beganB).toHaveLength(1);
    // B began only once A's process had ended (its handler with it), and within one lease of that.
    expect(beganB[0]!.at).toBeGreaterThan(reportA.exitingAt);
    expect(beganB[0]!.at - aEnded).toBeLessThan(LEASE_MS + SLACK_MS);
    // The handover counts an abandoned run (its outcome on A is unknown).
    expect(await row(id)).toEqual({ status: 'Completed', instance_id: null, abandoned_count: 1 });
    expect(await audits(id)).toEqual(['Queued', 'InProgress', 'ServiceStopped', 'Queued', 'InProgress', 'Completed']);
  }, 90_000);

  it('while the stopped instance\'s lease is alive, neither a running instance nor one that starts takes its row; once it is gone one does', async () => {
    const holdMs = 3 * LEASE_MS;
    const a = await startInstance(shared.database.connectionString, { handlerMs: 60_000, leaseMs: LEASE_MS, graceMs: 500, holdAfterStopMs: holdMs });
    shared.running.push(a);
    const id = await dispatch();
    await waitFor(async () => (await row(id)).status === 'InProgress', 15_000, 'A to start the run', 20);
    const b = await startInstance(shared.database.connectionString, { handlerMs: 50, leaseMs: LEASE_MS });
    shared.running.push(b);
    const stoppedA = a.stop();
    await waitFor(async () => (await row(id)).status === 'ServiceStopped', 15_000, 'A to mark the run ServiceStopped', 20);
    // An instance that starts now recovers what is gone at its start, and this row is not.
    const c = await startInstance(shared.database.connectionString, { handlerMs: 50, leaseMs: LEASE_MS });
    shared.running.push(c);
    // A's heartbeat goes on for the hold (its handler still runs there): more than a lease, the row stays.
    const until = realNow() + 1.5 * LEASE_MS;
    while (realNow() < until) {
      expect(await row(id)).toMatchObject({ status: 'ServiceStopped', instance_id: a.instanceId });
      await new Promise((r) => setTimeout(r, 100));
    }
    const reportA = await stoppedA;
    await waitFor(async () => (await row(id)).status === 'Completed', LEASE_MS + SLACK_MS + 5000, 'B or C to run the row once A is gone', 20);
    const reports = [await b.stop(), await c.stop()];
    const begins = reports.flatMap((r) => r.began).filter((x) => x.id === id);
    expect(begins).toHaveLength(1);
    expect(begins[0]!.at).toBeGreaterThan(reportA.exitingAt);
    expect(await row(id)).toEqual({ status: 'Completed', instance_id: null, abandoned_count: 1 });
  }, 90_000);

  it('a stop whose handlers all settled removes the instance row: its rows are free at once', async () => {
    const a = await startInstance(shared.database.connectionString, { handlerMs: 50, leaseMs: 30_000 });
    shared.running.push(a);
    await a.stop();
    const { rows } = await shared.storage.query(`SELECT id FROM engine_instances WHERE id = $1`, [a.instanceId]);
    expect(rows).toEqual([]);
  }, 30_000);
});
