import type { Database } from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine, EngineOptions } from '../../../server/src/index.js';
import type { MonitoringSource } from '../../../server/src/monitoring/createMonitoring.js';
import { openDatabase } from '../../../server/src/storage/sqlite/openDatabase.js';
import { BACKEND, openStoreUnderTest, type StoreUnderTest } from '../engine/fixtures/storeUnderTest.js';
import type { Backend } from '../support/backends.js';
import { recordingSqlite } from '../support/recordingSqlite.js';
import type { StoreProbe } from '../support/storeProbe.js';

/**
 * The data a monitoring suite serves, on the backend under test (SVC_STORE, as the engine suites:
 * a SQLite file by default; on PostgreSQL a fresh schema in the test file's own database).
 *
 * Suites seed rows with plain SQL on a better-sqlite3 handle (`db`): on SQLite that is the served
 * file itself; on PostgreSQL it is a scratch SQLite file whose writes are recorded and replayed on
 * the PostgreSQL schema by `flush` (PostgreSQL's triggers then build its own read models).
 */
export interface MonitoredStore {
  readonly backend: Backend;
  /** A temporary folder of the test (web roots, other files); removed by destroy. */
  readonly dir: string;
  /** Where seeds write (see above); writes reach PostgreSQL at the next `flush`. */
  readonly db: Database;
  /** Carries the writes made on `db` since the last flush to PostgreSQL (nothing to do on SQLite). */
  flush(): Promise<void>;
  /** Runs `write` on `db`, then flushes: how a test body adds rows while the monitoring runs. */
  seed<T>(write: (db: Database) => T): Promise<T>;
  /** Reads of the served data, on either backend. */
  readonly probe: StoreProbe;
  /** The task-count read models (stat_tasks, stat_created_hour, stat_created_day): non-zero rows in a fixed order. */
  countModels(): Promise<Record<string, Record<string, unknown>[]>>;
  /** Runs PostgreSQL's periodic roll-up of the read models now (SQLite has none: nothing to do). */
  rollUp(): Promise<void>;
  /** Recomputes the read models from the task rows, as the storage's repair does. */
  rebuildReadModels(): Promise<void>;
  /** createEngine on the served data. */
  engine(options?: Omit<EngineOptions, 'storage' | 'store'>): Engine;
  /** What createMonitoring is given: the standalone registration, or the full one with `engine`. */
  source(engine?: Engine): Promise<MonitoringSource>;
  /** Closes the storage and removes the data and the folder. */
  destroy(): Promise<void>;
}

/**
 * Lets the event loop catch up after a synchronous write. A seed of many rows can block the loop
 * for longer than the served HTTP server's keep-alive timeout (5 s, under load); the client's idle
 * keep-alive socket is then expired on the server too, but neither side's timer has run. A request
 * sent right away goes out on that socket, the server's timer fires next and closes it under the
 * request (ECONNRESET, "fetch failed"). One turn of timers, then of I/O, closes such sockets first.
 */
async function afterBlockingWrite(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  await new Promise((resolve) => setImmediate(resolve));
}

export function openMonitoredStore(): MonitoredStore {
  const dir = mkdtempSync(join(tmpdir(), 'svc-mon-'));
  const under: StoreUnderTest = openStoreUnderTest();
  const common = {
    backend: under.backend,
    dir,
    probe: under.probe,
    engine: (options: Omit<EngineOptions, 'storage' | 'store'> = {}) => under.engine(options),
    rebuildReadModels: () => under.store.rebuildReadModels(),
    async rollUp() {
      const storage = await under.storage();
      if ('rollupReadModels' in storage) await storage.rollupReadModels();
    },
    async countModels() {
      const out: Record<string, Record<string, unknown>[]> = {};
      // PostgreSQL keeps each model as rolled-up rows plus pending deltas (the _v views).
      const view = (m: string) => (under.backend === 'postgres' ? `${m}_v` : m);
      const dimensions: Record<string, string> = {
        stat_tasks: 'queue, type, status, is_recurring, is_occurrence',
        stat_created_hour: 'hour, type, status',
        stat_created_day: 'day, type, status',
      };
      for (const [m, dims] of Object.entries(dimensions)) {
        out[m] = await under.probe.rows(`SELECT ${dims}, SUM(n) AS n FROM ${view(m)} GROUP BY ${dims} HAVING SUM(n) <> 0 ORDER BY ${dims}`);
      }
      return out;
    },
    async source(engine?: Engine): Promise<MonitoringSource> {
      const storage = await under.storage();
      return engine === undefined ? { storage } : { engine, storage };
    },
  };
  if (under.sqlite !== undefined) {
    const db = under.sqlite.db;
    return {
      ...common,
      db,
      flush: async () => undefined,
      seed: async (write) => {
        const result = write(db);
        await afterBlockingWrite();
        return result;
      },
      async destroy() {
        await under.destroy();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const scratch = openDatabase({ file: join(dir, 'seed.db') });
  const recorded = recordingSqlite(scratch);
  const flush = async () => {
    const storage = await under.storage();
    if (!('transaction' in storage)) throw new Error('a PostgreSQL store under test has no PostgreSQL storage');
    await storage.transaction((c) => recorded.replay(c));
  };
  return {
    ...common,
    db: recorded.db,
    flush,
    async seed(write) {
      const result = write(recorded.db);
      await flush();
      return result;
    },
    async destroy() {
      await under.destroy();
      scratch.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export { BACKEND };
