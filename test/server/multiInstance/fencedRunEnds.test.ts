import { describe, expect, it } from 'vitest';
import { waitFor } from '../../fixtures/waitFor.js';
import { createEngine } from '../../../server/src/engine/Engine.js';
import { snapshotReadModels } from '../../fixtures/server/postgresReadModelSnapshot.js';
import { startInstance } from '../../fixtures/server/pgInstances.js';
import { useSharedDatabase } from '../../fixtures/server/sharedDatabase.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A run that lost its lease while its process was frozen (SIGSTOP: an event-loop stall, a frozen
 * VM) cannot write its end over the run of the instance that recovered the row.
 */
describe('fenced run ends on PostgreSQL', () => {
  const shared = useSharedDatabase('svc_fence', 3);

  it('a frozen runner thawed after another instance recovered its row: its end is dropped; the final state is the live run’s', async () => {
    const row = async (id: string) =>
      (await shared.storage.query<{ status: string; instance_id: string | null; exception: string | null; run_count: number; run_token: string | null }>(
        `SELECT status, instance_id, exception, run_count, run_token FROM tasks WHERE id = $1`, [id],
      )).rows[0]!;
    // SIGSTOP can freeze the first instance inside a transaction (a heartbeat, a commit) whose locks
    // would keep the second from recovering the row until the thaw, which this test gives only after
    // the recovery. The server ends a transaction left idle for 3 s, as a deployment of several
    // instances should configure (sessions opened after this line get it; the store's default of 90 s
    // applies only where the database sets none, and `idleInTransactionTimeoutMs` would override it).
    await shared.storage.query(`ALTER DATABASE "${shared.database.name}" SET idle_in_transaction_session_timeout = '3s'`);
    const first = await startInstance(shared.database.connectionString, { handlerMs: 1500, leaseMs: 1000 });
    shared.running.push(first);
    // Dispatched from this process (its engine never starts, so never runs it).
    const dispatcher = createEngine({ store: shared.store, onError: () => undefined }).handle('Multi.Fence', () => undefined);
    const id = await dispatcher.dispatch('Multi.Fence', {});
    await waitFor(async () => (await row(id)).status === 'InProgress', 15_000, 'the first instance to start the run', 20);
    expect((await row(id)).instance_id).toBe(first.instanceId);
    first.child.kill('SIGSTOP');
    const second = await startInstance(shared.database.connectionString, { handlerMs: 3000, leaseMs: 1000 });
    shared.running.push(second);
    await waitFor(async () => (await row(id)).instance_id === second.instanceId && (await row(id)).status === 'InProgress', 15_000, 'the second instance to recover and start it', 20);
    const liveRun = (await row(id)).run_token;
    first.child.kill('SIGCONT');
    // The first handler's time is long over: it fails at once, and its end is refused.
    for (let i = 0; i < 10; i++) {
      await sleep(100);
      expect(await row(id)).toMatchObject({ status: 'InProgress', instance_id: second.instanceId, run_token: liveRun, run_count: 0 });
    }
    await waitFor(async () => (await row(id)).status === 'Failed', 15_000, 'the live run to end', 20);
    expect(await row(id)).toMatchObject({ status: 'Failed', run_count: 1, exception: expect.stringContaining(`failed in process ${second.child.pid}`) });
    const reports = [await first.stop(), await second.stop()];
    expect(reports[0]!.staleRunWrites).toBe(1);
    expect(reports[1]!.staleRunWrites).toBe(0);
    const { rows: audits } = await shared.storage.query<{ new_status: string }>(`SELECT new_status FROM status_audit WHERE task_id = $1 ORDER BY id`, [id]);
    expect(audits.map((a) => a.new_status)).toEqual(['Queued', 'InProgress', 'Queued', 'InProgress', 'Failed']);
    // The read models equal a recomputation after the dropped end.
    const live = await snapshotReadModels(shared.storage);
    await shared.storage.rebuildReadModels();
    expect(live).toEqual(await snapshotReadModels(shared.storage));
  }, 60_000);
});
