import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvcEvent } from '../../../server/src/contracts/index.js';
import { createEngine } from '../../../server/src/engine/Engine.js';
import type { Engine } from '../../../server/src/engine/types.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';

/** The poll interval of the idle engine: far longer than any wait the test accepts. */
const POLL_MS = 60_000;

/** Resolves with the first event of `engine` matching `match`. */
const nextEvent = (engine: Engine, match: (e: SvcEvent) => boolean) =>
  new Promise<SvcEvent>((resolve) => {
    const listener = (e: SvcEvent) => {
      if (!match(e)) return;
      engine.off('event', listener);
      resolve(e);
    };
    engine.on('event', listener);
  });

describe('wake-ups across engine instances on one PostgreSQL database', () => {
  let database: TestDatabase;
  let storageA: PostgresStorage;
  let storageB: PostgresStorage;
  let storeA: PostgresEngineStore;
  let storeB: PostgresEngineStore;
  let engineA: Engine;
  let engineB: Engine;
  /** Resolves when engine B has gone idle and armed its poll timer (it asked the store for its next wake). */
  let bIdle!: Promise<void>;
  let releaseTicker!: () => void;

  beforeAll(async () => {
    database = await createTestDatabase('svc_wake');
    storageA = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 2 });
    storageB = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 2 });
    storeA = createPostgresEngineStore(storageA);
    storeB = createPostgresEngineStore(storageB);
    let armed!: () => void;
    bIdle = new Promise((r) => (armed = r));
    const nextWakeAt = storeB.nextWakeAt;
    storeB.nextWakeAt = (now) => nextWakeAt(now).finally(armed);
    // B's schedule ticker looks every second and makes the engine look after each tick: its first
    // look is held until the end, so B can only look at its 60 s poll or when woken.
    const dueScheduleIds = storeB.schedules.dueScheduleIds;
    const held = new Promise<void>((r) => (releaseTicker = r));
    storeB.schedules.dueScheduleIds = (until) => held.then(() => dueScheduleIds(until));
    // A dispatches (its handler is registered, so dispatch accepts the type) but is never started: it claims nothing.
    engineA = createEngine({ store: storeA, pollIntervalMs: POLL_MS });
    engineA.handle('Wake.Remote', () => undefined);
    engineB = createEngine({ store: storeB, pollIntervalMs: POLL_MS });
    engineB.handle('Wake.Remote', () => undefined);
    await engineB.start();
    await storageB.events.ready();
  });
  afterAll(async () => {
    releaseTicker?.();
    await engineB?.stop();
    await storeA?.dispose();
    await storeB?.dispose();
    await storageA?.close();
    await storageB?.close();
    await database?.drop();
  });

  it('a task dispatched on A is started by the idle B within well under its poll interval', async () => {
    await bIdle;
    const started = nextEvent(engineB, (e) => e.kind === 'Started');
    const completed = nextEvent(engineB, (e) => e.kind === 'Completed');
    const t0 = Date.now();
    const id = await engineA.dispatch('Wake.Remote', { n: 1 });
    const e = await started;
    const elapsed = Date.now() - t0;
    expect(e.taskId).toBe(id);
    // Only the NOTIFY can explain a start this soon: B's next poll is a minute away.
    expect(elapsed).toBeLessThan(POLL_MS / 20);
    expect((await completed).taskId).toBe(id);
    const { rows } = await storageA.query<{ status: string; run_count: number }>(`SELECT status, run_count FROM tasks WHERE id = $1`, [id]);
    expect(rows[0]).toEqual({ status: 'Completed', run_count: 1 });
  });

  it('an instance is not woken by its own writes, only by the other instance', async () => {
    const heard: string[] = [];
    await storageA.events.ready();
    const offB = storeB.onExternalWork!(() => heard.push('B'));
    const offA = storeA.onExternalWork!(() => heard.push('A'));
    // A's raw wake notices, delivered in the same emit as A's filtered listener above (registered before it).
    const ownNotice = new Promise<void>((resolve) => {
      const raw = (origin: string) => {
        if (origin !== storeA.instanceId) return;
        storageA.events.off('wake', raw);
        resolve();
      };
      storageA.events.on('wake', raw);
    });
    const completed = nextEvent(engineB, (e) => e.kind === 'Completed');
    const id = await engineA.dispatch('Wake.Remote', { n: 2 });
    await ownNotice;
    expect((await completed).taskId).toBe(id);
    offB();
    offA();
    expect(heard).toContain('B');
    expect(heard).not.toContain('A');
  });
});
