// @backends sqlite postgres — the limits are checked before any store call.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../fixtures/waitFor.js';
import { RateLimiter } from '../../../server/src/engine/RateLimiter.js';
import type { Engine, EngineOptions } from '../../../server/src/index.js';
import type { StoreProbe } from '../../fixtures/server/storeProbe.js';
import { BACKEND, openStoreUnderTest } from '../../fixtures/server/storeUnderTest.js';

// Cap-like rules of the engine on their boundaries, as properties: queue capacity (Queued rows
// admitted), the execution-log cap per run, and the rate-limit window (a start counts for
// exactly windowMs: at start + windowMs the budget is back).

// Each case opens a fresh store; on PostgreSQL (a schema migrated per store) fewer random cases
// check that the same rules hold there (the examples always run).
const runs = (n: number) => (BACKEND === 'postgres' ? Math.ceil(n / 4) : n);

interface Fresh {
  probe: StoreProbe;
  engine: Engine;
  dispose(): Promise<void>;
}

/** A fresh store under test (SQLite file or PostgreSQL schema) and an engine on it. */
function fresh(options: Omit<EngineOptions, 'storage' | 'store'> = {}): Fresh {
  const sut = openStoreUnderTest();
  const engine = sut.engine({ pollIntervalMs: 10, ...options });
  return {
    probe: sut.probe,
    engine,
    async dispose() {
      await engine.stop({ graceMs: 0 });
      await sut.destroy();
    },
  };
}

const statusOf = async (f: Fresh, id: string) => (await f.probe.status(id)) as string;

describe('queue capacity', () => {
  it('the first `capacity` dispatches are Queued, every later one WaitingQueue (one commit each, or all in one commit)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 9 }), fc.boolean(), async (capacity, k, together) => {
        const f = fresh({ queues: { reports: { concurrency: 1, capacity } } });
        try {
          f.engine.handle('Reports.Build', async () => {});
          const dispatch = (i: number) => f.engine.dispatch('Reports.Build', { i }, { queue: 'reports' });
          const ids: string[] = [];
          if (together) ids.push(...(await Promise.all(Array.from({ length: k }, (_, i) => dispatch(i)))));
          else for (let i = 0; i < k; i++) ids.push(await dispatch(i));
          expect(await f.probe.statuses(ids)).toEqual(ids.map((_, i) => (i < capacity ? 'Queued' : 'WaitingQueue')));
          const audits = await f.probe.values('SELECT new_status FROM status_audit ORDER BY id');
          expect(audits).toEqual(ids.map((_, i) => (i < capacity ? 'Queued' : 'WaitingQueue')));
        } finally {
          await f.dispose();
        }
      }),
      { numRuns: runs(20), examples: [[3, 3, false], [3, 4, true]] },
    );
  });
});

describe('execution-log cap per run', () => {
  it('each run keeps min(logged, cap) records, numbered 1…n, the first ones logged', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 6 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 3 }), async (cap, counts) => {
        const f = fresh({ logCapPerRun: cap });
        try {
          const lines = new Map<string, number>();
          f.engine.handle('Logs.Write', async (req: { n: number }, ctx) => {
            for (let i = 1; i <= req.n; i++) ctx.log.info(`line ${i}`);
          });
          await f.engine.start();
          for (const n of counts) {
            const id = await f.engine.dispatch('Logs.Write', { n });
            lines.set(id, n);
          }
          await waitFor(async () => (await f.probe.statuses([...lines.keys()])).every((s) => s === 'Completed'), 5000, 'the runs to complete', 2);
          for (const [id, n] of lines) {
            const kept = await f.probe.rows('SELECT sequence_number, message FROM execution_logs WHERE task_id = ? ORDER BY sequence_number', id);
            const expected = Math.min(n, cap);
            expect(kept).toEqual(Array.from({ length: expected }, (_, i) => ({ sequence_number: i + 1, message: `line ${i + 1}` })));
          }
        } finally {
          await f.dispose();
        }
      }),
      { numRuns: runs(15), examples: [[3, [3, 4]], [0, [1]]] },
    );
  });
});

describe('rate-limit window', () => {
  /** Oracle: a start at s counts against the budget at every instant t with s ≤ t < s + windowMs. */
  function model(limit: number, windowMs: number, times: number[]): Array<true | number> {
    const starts: number[] = [];
    return times.map((t) => {
      const live = starts.filter((s) => s <= t && t < s + windowMs);
      if (live.length < limit) {
        starts.push(t);
        return true;
      }
      // free again when the oldest start that keeps the budget full leaves the window
      return live[live.length - limit]! + windowMs;
    });
  }

  it('RateLimiter.take agrees with the window oracle, edges included', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 30 }),
        (limit, windowMs, gaps) => {
          const times: number[] = [];
          let t = 1000;
          for (const g of gaps) times.push((t += g));
          const limiter = new RateLimiter();
          const got = times.map((now) => limiter.take('k', { limit, windowMs }, now));
          expect(got).toEqual(model(limit, windowMs, times));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('in the engine: an over-budget task is throttled until exactly the first start + windowMs, and runs once the clock reaches that instant', async () => {
    let now = Date.parse('2026-06-01T12:00:00.000Z');
    const t0 = now;
    const f = fresh({ clock: () => now });
    try {
      const started: string[] = [];
      f.engine.handle('Mail.Send', async (_r, ctx) => void started.push(ctx.taskId), { rateLimit: { limit: 2, windowMs: 1000 } });
      const ids = await Promise.all([0, 1, 2].map((i) => f.engine.dispatch('Mail.Send', { i })));
      await f.engine.start();
      await waitFor(async () => started.length === 2 && (await f.probe.value('SELECT throttled_until FROM tasks WHERE id = ?', ids[2])) !== null, 5000, 'two starts and a throttle', 2);
      expect(started).toEqual(ids.slice(0, 2));
      expect(await f.probe.row('SELECT status, throttled_until FROM tasks WHERE id = ?', ids[2])).toEqual({ status: 'Queued', throttled_until: t0 + 1000 });
      now = t0 + 1000;
      await waitFor(async () => (await statusOf(f, ids[2]!)) === 'Completed', 5000, 'the throttled task to run at the window edge', 2);
      expect(started).toEqual(ids);
    } finally {
      await f.dispose();
    }
  });
});
