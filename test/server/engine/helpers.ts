import type { Engine, EngineOptions, SqliteStorage, SvcEvent } from '../../../server/src/index.js';
import type { StoreProbe } from '../support/storeProbe.js';
import { openStoreUnderTest, type StoreUnderTest } from './fixtures/storeUnderTest.js';

export interface Harness {
  /** The store the engine runs on (SQLite file or PostgreSQL schema, see storeUnderTest). */
  sut: StoreUnderTest;
  probe: StoreProbe;
  /** The SQLite storage and file (SQLite-only suites: throws on PostgreSQL). */
  readonly storage: SqliteStorage;
  readonly file: string;
  engine: Engine;
  events: SvcEvent[];
  /** status_audit new_status values of a task, oldest first. */
  audits(id: string): Promise<string[]>;
  auditRows(id: string): Promise<{ new_status: string; exception: string | null; updated_at: number }[]>;
  row(id: string): Promise<Record<string, unknown>>;
  status(id: string): Promise<string>;
  /** Statuses of several tasks, in the order given. */
  statuses(ids: readonly string[]): Promise<string[]>;
  close(): Promise<void>;
}

const open: Harness[] = [];

export function harness(options: Partial<EngineOptions> = {}): Harness {
  const sut = openStoreUnderTest();
  const { storage: _s, store: _st, ...engineOptions } = options;
  const engine = sut.engine({ pollIntervalMs: 20, ...engineOptions });
  const events: SvcEvent[] = [];
  engine.on('event', (e) => events.push(e));
  const probe = sut.probe;
  const h: Harness = {
    sut,
    probe,
    get storage() {
      if (sut.sqlite === undefined) throw new Error('this suite reads the SQLite storage itself: it runs on SQLite only');
      return sut.sqlite;
    },
    get file() {
      if (sut.sqlite === undefined) throw new Error('this suite uses the SQLite file itself: it runs on SQLite only');
      return sut.location;
    },
    engine,
    events,
    audits: (id) => probe.audits(id),
    auditRows: (id) => probe.auditRows(id),
    row: async (id) => (await probe.task(id)) ?? {},
    status: async (id) => (await probe.status(id)) as string,
    statuses: async (ids) => (await probe.statuses(ids)) as string[],
    close: async () => {
      await engine.stop({ graceMs: 0 });
      await sut.destroy();
    },
  };
  open.push(h);
  return h;
}

export async function closeAll(): Promise<void> {
  while (open.length > 0) await open.pop()!.close();
}

/** The suite's polling wait, re-exported for the engine files that import it from here. */
export { waitFor } from '../../fixtures/waitFor.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function deferred<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
