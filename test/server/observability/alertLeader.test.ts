import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../../server/src/engine/Engine.js';
import { createPostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { publishEngineEvents } from '../../../server/src/storage/postgres/events/publishEngineEvents.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { sleep } from '../../fixtures/server/engineHarness.js';
import { serve, type Served } from '../../fixtures/server/servedMonitoring.js';
import { webhookReceiver } from '../../fixtures/server/webhookReceiver.js';
import { waitFor } from '../../fixtures/waitFor.js';

// Two instances on one PostgreSQL store, each with the monitoring and the same TaskFailed rule:
// the rule is evaluated by one of them (an advisory lock), over every instance's failures.

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

async function instance(connectionString: string, alerts: unknown[]) {
  const storage = await openPostgresStorage({ connectionString, poolSize: 3 });
  const store = createPostgresEngineStore(storage);
  const engine = createEngine({ store, pollIntervalMs: 20, onError: () => undefined });
  engine.handle('pg.boom', async () => {
    throw new Error('exploded');
  });
  const stopPublishing = publishEngineEvents(engine, storage);
  await engine.start();
  const served: Served = await serve({ engine, storage }, { enableAuthentication: false, alerts: alerts as never });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await served.close();
    await engine.stop({ graceMs: 0 });
    await stopPublishing();
    await store.dispose();
    await storage.close();
  };
  cleanups.push(close);
  return { engine, served, close };
}

/** The advisory locks granted in the store's database (the alert leadership holds one). */
const advisoryLocksHeld = async (storage: PostgresStorage) =>
  (await storage.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
    WHERE l.locktype = 'advisory' AND l.granted AND d.datname = current_database()`)).rows[0]!.n;

describe('alert rules on PostgreSQL: once per cluster', () => {
  it('one instance evaluates the rule over both instances\' failures; when it stops, the other takes over', async () => {
    const database = await createTestDatabase('svc_alert_leader');
    cleanups.push(() => database.drop());
    const hook = await webhookReceiver();
    cleanups.push(() => hook.close());
    const rules = [{ on: 'TaskFailed', name: 'cluster failures', threshold: 4, windowMs: 4000, webhook: { url: hook.url } }];
    const first = await instance(database.connectionString, rules);
    await sleep(1500); // the first takes the lock at its first look
    const second = await instance(database.connectionString, rules);

    // Two failures dispatched by each: four in the cluster; neither instance alone counts four
    // unless it sees the other's events.
    for (let i = 0; i < 2; i++) {
      await first.engine.dispatch('pg.boom', { i });
      await second.engine.dispatch('pg.boom', { i });
    }
    await waitFor(() => hook.received.length >= 1, 15_000, 'the firing message');
    await waitFor(() => hook.received.some((r) => r.json.state === 'resolved'), 15_000, 'resolved');
    await sleep(1000);
    // One firing and one resolved: not one per instance.
    expect(hook.received.map((r) => r.json.state)).toEqual(['firing', 'resolved']);
    expect(hook.received[0]!.json.count).toBe(4);

    await first.close();
    await sleep(2500); // within a second or two, the second holds the lock
    for (let i = 0; i < 4; i++) await second.engine.dispatch('pg.boom', { after: i });
    await waitFor(() => hook.received.length === 3, 15_000, 'a firing message from the second instance');
    expect(hook.received[2]!.json).toMatchObject({ state: 'firing', count: 4 });
  }, 90_000);

  it('a host that closes the storage before the monitoring: the close ends the leadership and returns at once', async () => {
    const database = await createTestDatabase('svc_alert_leader_close');
    cleanups.push(() => database.drop());
    const storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 3 });
    cleanups.push(() => storage.close());
    const rules = [{ on: 'TaskFailed', name: 'cluster failures', threshold: 4, windowMs: 4000, webhook: { url: 'http://127.0.0.1:9/' } }];
    const served = await serve({ storage }, { enableAuthentication: false, alerts: rules as never, enableMetrics: true });
    cleanups.push(() => served.close());
    // The leadership's session lock, held on a connection kept out of the pool.
    await waitFor(async () => (await advisoryLocksHeld(storage)) === 1, 15_000, 'the leadership taken', 100);

    const started = Date.now();
    const closing = storage.close().then(() => 'closed' as const);
    const outcome = await Promise.race([closing, sleep(5000).then(() => 'still waiting' as const)]);
    expect(outcome).toBe('closed');
    expect(Date.now() - started).toBeLessThan(5000);
    // The lock went with the connection: the server holds none for this database.
    const admin = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 1, rollupIntervalMs: 0 });
    try {
      expect(await advisoryLocksHeld(admin)).toBe(0);
    } finally {
      await admin.close();
    }
    // The monitoring closes afterwards without waiting either.
    const monitoringOutcome = await Promise.race([served.close().then(() => 'closed' as const), sleep(5000).then(() => 'still waiting' as const)]);
    expect(monitoringOutcome).toBe('closed');
  }, 60_000);
});
