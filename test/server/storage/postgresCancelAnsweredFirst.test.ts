import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../../server/src/index.js';
import type { CommitOutcome, EngineStore, RunCheckAnswer } from '../../../server/src/storage/EngineStore.js';
import { createPostgresEngineStore, type PostgresEngineStore } from '../../../server/src/storage/postgres/createPostgresEngineStore.js';
import { createPostgresTaskManagementStore } from '../../../server/src/storage/postgres/management/createPostgresTaskManagementStore.js';
import { openPostgresStorage } from '../../../server/src/storage/postgres/openPostgresStorage.js';
import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';
import { createTestDatabase, type TestDatabase } from '../../fixtures/server/postgresDatabase.js';
import { deferred } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

// On PostgreSQL an engine's claim or run check reads rows on one pooled connection while a cancel
// of the same process commits on another; the read's answer can reach the engine after the
// cancel's answer reached its caller. No handler may begin then for a row the cancel ended. The
// store's answers are held back here (as a slow connection or a busy event loop would) until the
// cancel has answered.

let database: TestDatabase;
let storage: PostgresStorage;
const stores: PostgresEngineStore[] = [];
let engine: Engine | undefined;

beforeAll(async () => {
  database = await createTestDatabase('svc_cancelfirst');
  storage = await openPostgresStorage({ connectionString: database.connectionString, poolSize: 4, rollupIntervalMs: 0 });
}, 60_000);
afterEach(async () => {
  await engine?.stop({ graceMs: 0 });
  engine = undefined;
  for (const s of stores.splice(0)) await s.dispose();
  await storage.query('DELETE FROM tasks');
});
afterAll(async () => {
  await storage?.close();
  await database?.drop();
});

/** The next answer of `method` (once `when` holds for it) waits for `release` after its read is in: `read` resolves then. */
interface HeldAnswer<T> {
  when: (answer: T) => boolean;
  read: ReturnType<typeof deferred<void>>;
  release: ReturnType<typeof deferred<void>>;
}

/** The PostgreSQL engine store, its run checks and commits answered late on demand. */
function slowAnswers() {
  const store = createPostgresEngineStore(storage);
  stores.push(store);
  const held: { check?: HeldAnswer<RunCheckAnswer>; commit?: HeldAnswer<CommitOutcome> } = {};
  const late = async <T,>(slot: 'check' | 'commit', answer: T): Promise<T> => {
    const h = held[slot] as HeldAnswer<T> | undefined;
    if (h !== undefined && h.when(answer)) {
      delete held[slot];
      h.read.resolve();
      await h.release.promise;
    }
    return answer;
  };
  const wrapped = new Proxy(store, {
    get(target, prop) {
      if (prop === 'confirmRuns') return async (checks: Parameters<NonNullable<EngineStore['confirmRuns']>>[0]) => late('check', await target.confirmRuns!(checks));
      if (prop === 'commit') return async (b: Parameters<EngineStore['commit']>[0]) => late('commit', await target.commit(b));
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as EngineStore;
  return { store: wrapped, held };
}

/** Handlers of `Late.Step` that note which task began after `cancelled` was set. */
function steps(e: Engine) {
  const state = { cancelled: false, begun: new Set<string>(), beganAfterCancel: new Set<string>() };
  e.handle('Late.Step', (_request, ctx) => {
    state.begun.add(ctx.taskId);
    if (state.cancelled) state.beganAfterCancel.add(ctx.taskId);
  }, { retry: { attempts: 1 } });
  return state;
}

const statuses = async (ids: string[]) =>
  (await storage.query<{ id: string; status: string }>('SELECT id, status FROM tasks WHERE id = ANY($1::text[])', [ids])).rows;
const cancel = (ids: string[]) =>
  createPostgresTaskManagementStore(storage, async () => undefined).applyBulkBatch({ action: 'cancel', ids, now: Date.now(), actor: 'test', statuses: ['Queued'] });

describe('PostgreSQL: a cancel answered first keeps a read that came back later from beginning the row', () => {
  it('a run check read before the cancel, answered after it: the reserved rows never begin', async () => {
    const { store, held } = slowAnswers();
    engine = createEngine({ store, pollIntervalMs: 20, onError: () => undefined, queues: { default: { concurrency: 1 } } });
    const state = steps(engine);
    const gate = deferred<void>();
    engine.handle('Late.Block', () => gate.promise);
    await engine.start();
    // Short runs first: the engine then reserves rows ahead of its one worker.
    const warm = await Promise.all(Array.from({ length: 20 }, (_, i) => engine!.dispatch('Late.Step', { warm: i })));
    await waitFor(async () => (await statuses(warm)).every((r) => r.status === 'Completed'), 10_000, 'the warm-up runs');
    const block = await engine.dispatch('Late.Block', {});
    await waitFor(async () => (await statuses([block]))[0]?.status === 'InProgress', 5000, 'the block running');
    const ids = await Promise.all(Array.from({ length: 5 }, (_, i) => engine!.dispatch('Late.Step', { i })));
    await waitFor(async () => (await storage.query(`SELECT 1 FROM tasks WHERE id = ANY($1::text[]) AND reserved_by IS NOT NULL`, [ids])).rowCount! > 0, 5000, 'rows reserved ahead');
    // The worker frees: the next reserved row is checked, and that check's answer waits for the cancel.
    const check: HeldAnswer<RunCheckAnswer> = { when: (a) => a.some((v) => v === true), read: deferred<void>(), release: deferred<void>() };
    held.check = check;
    gate.resolve();
    await check.read.promise;
    const r = await cancel(ids);
    state.cancelled = true;
    check.release.resolve();
    expect(r.cancelled.length).toBeGreaterThan(0);
    await waitFor(async () => (await statuses(ids)).every((s) => ['Completed', 'Cancelled'].includes(s.status)), 10_000, 'every step ended');
    const cancelled = (await statuses(ids)).filter((s) => s.status === 'Cancelled').map((s) => s.id);
    expect(cancelled.length).toBe(r.cancelled.length);
    expect(cancelled.filter((id) => state.beganAfterCancel.has(id))).toEqual([]);
  }, 60_000);

  it('a claim answered after the cancel of its rows: they never begin', async () => {
    const { store, held } = slowAnswers();
    engine = createEngine({ store, pollIntervalMs: 20, onError: () => undefined, queues: { default: { concurrency: 2 } } });
    const state = steps(engine);
    await engine.start();
    // The commit that claims them (it may be the one that inserts them) answers only after the cancel has.
    let ids: string[] = [];
    const claim: HeldAnswer<CommitOutcome> = {
      when: (out) => {
        ids = out.claimed.filter((row) => row.type === 'Late.Step').map((row) => row.id);
        return ids.length > 0;
      },
      read: deferred<void>(),
      release: deferred<void>(),
    };
    held.commit = claim;
    const dispatched = Promise.all(Array.from({ length: 2 }, (_, i) => engine!.dispatch('Late.Step', { i })));
    await claim.read.promise;
    const r = await cancel(ids);
    state.cancelled = true;
    claim.release.resolve();
    await dispatched;
    expect(r.cancelled.length).toBe(ids.length);
    await waitFor(async () => (await statuses(ids)).every((s) => s.status === 'Cancelled'), 10_000, 'both Cancelled');
    // Time for a handler to begin, had it been going to.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect([...state.beganAfterCancel]).toEqual([]);
  }, 60_000);
});
