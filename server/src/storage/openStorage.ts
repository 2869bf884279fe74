import type { Database } from 'better-sqlite3';
import { hostname } from 'node:os';
import type { EngineStore } from './EngineStore.js';
import type { MonitoringStore } from './MonitoringStore.js';
import type { SqliteStorage } from './Storage.js';
import type { AlertStateStore } from './AlertStateStore.js';
import { openAlertStateStore } from './openAlertStateStore.js';
import { openAuditStore, type OpenedAuditStore } from './openAuditStore.js';
import { SOLE_LEADERSHIP, type AlertLeadership } from './AlertLeadership.js';
import { postgresLeadership } from './postgres/coordination/alertLeadership.js';
import { createPostgresEngineStore, type PostgresEngineStore, type PostgresEngineStoreOptions } from './postgres/createPostgresEngineStore.js';
import { publishEngineEvents } from './postgres/events/publishEngineEvents.js';
import type { StorageScheduleOperations } from './postgres/management/createPostgresScheduleOperations.js';
import { isPostgresStorage, postgresMonitoringParts, type LocalEngine } from './postgres/monitoring/postgresMonitoringSource.js';
import { openPostgresStorage, type OpenPostgresStorageOptions } from './postgres/openPostgresStorage.js';
import type { PostgresStorage } from './postgres/PostgresStorage.js';
import { createSqliteEngineStore } from './sqlite/createSqliteEngineStore.js';
import { createSqliteMonitoringStore } from './sqlite/monitoring/createSqliteMonitoringStore.js';
import { openSqliteStorage, type OpenSqliteStorageOptions } from './sqlite/openSqliteStorage.js';
import { demoSeedStore, type DemoSeedStore } from './common/demoSeedStore.js';
import { postgresReadDb } from './postgres/monitoring/postgresReadDb.js';
import { sqliteReadDb } from './sqlite/monitoring/sqliteReadDb.js';

// The one entry through which code outside storage/ reaches a backend: the engine, the monitoring
// and the command line ask here for what they need and never name SQLite or PostgreSQL themselves.
// It hands out types and its own functions, never a backend's function: a store is opened by
// openStorage(options) (test/server/storage/storageEntry.test.ts).

export type { DemoSeedStore, LocalEngine, OpenedAuditStore, PostgresEngineStore, PostgresStorage, SqliteStorage, StorageScheduleOperations };
export type { OpenPostgresStorageOptions, OpenSqliteStorageOptions, PostgresEngineStoreOptions };

/** A SQLite store the monitoring can read: anything holding an open better-sqlite3 database. */
export interface SqliteHandle {
  db: Database;
}

/** Either backend, open. */
export type AnyStorage = SqliteHandle | PostgresStorage;

export type OpenStorageOptions = ({ backend: 'sqlite' } & OpenSqliteStorageOptions) | ({ backend: 'postgres' } & OpenPostgresStorageOptions);

/** What the engine, the monitoring and the command line need of one open store, either backend. */
export interface StorageParts {
  readonly backend: 'sqlite' | 'postgres';
  readonly storage: SqliteStorage | PostgresStorage;
  /**
   * Where the store is, for a person: SQLite its file; PostgreSQL `PostgreSQL host:port/database
   * (schema s)`, `instance` named inside the parentheses when given.
   */
  describe(instance?: string): string;
  /**
   * The engine's store (SQLite: one per connection; PostgreSQL: one per engine instance, `options`
   * its lease and instance settings). `instanceId` names the engine instance in logs (SQLite: the
   * host and process). `dispose` after the engine stopped (PostgreSQL: ends the lease).
   */
  engineStore(options?: PostgresEngineStoreOptions): EngineStore & { readonly instanceId: string; dispose(): Promise<void> };
  /** The monitoring reads. */
  monitoringStore(): MonitoringStore;
  /** The operator audit table, and whether this process may append to it (undefined: the schema has none). */
  operatorAudit(): OpenedAuditStore | undefined;
  /** Schedule operations any process may perform (PostgreSQL); undefined where only the engine may (SQLite). */
  scheduleOperations(): StorageScheduleOperations | undefined;
  /** The demo's seeding writes beside the engine API. */
  demoSeed(): DemoSeedStore;
  /** Publishes a local engine's events to the other processes of a shared store; answers the stop (awaited: the last events are sent). */
  publishEvents(engine: Parameters<typeof publishEngineEvents>[0]): () => Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens a store of either backend (PostgreSQL migrates on open; SQLite unless read-only). A
 * SQLite file opened read-only is another process's store: one without the Svc Monitor tables is
 * refused (an Error naming the cause).
 */
export async function openStorage(options: OpenStorageOptions): Promise<StorageParts> {
  if (options.backend === 'postgres') {
    const { backend: _backend, ...rest } = options;
    return storageParts(await openPostgresStorage(rest));
  }
  const { backend: _backend, ...rest } = options;
  const storage = openSqliteStorage(rest);
  if (storage.readonly) {
    try {
      const tables = storage.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('tasks', 'stat_tasks')`).all();
      if (tables.length < 2) throw new Error('no Svc Monitor tables (tasks, stat_tasks)');
    } catch (err) {
      storage.close();
      throw err;
    }
  }
  return storageParts(storage);
}

/** The parts of a store opened by openSqliteStorage or openPostgresStorage. */
function storageParts(storage: SqliteStorage | PostgresStorage): StorageParts {
  if (isPostgresStorage(storage)) {
    return {
      backend: 'postgres',
      storage,
      describe: (instance) =>
        `PostgreSQL ${storage.target.host}:${storage.target.port}/${storage.target.database} (schema ${storage.schema}${instance === undefined ? '' : `, instance ${instance}`})`,
      engineStore: (options) => createPostgresEngineStore(storage, options),
      monitoringStore: () => postgresMonitoringParts(storage).store,
      operatorAudit: () => openAuditStore(storage, undefined),
      scheduleOperations: () => postgresMonitoringParts(storage).engine.schedules,
      demoSeed: () => demoSeedStore(postgresReadDb(storage)),
      publishEvents: (engine) => publishEngineEvents(engine, storage),
      close: () => storage.close(),
    };
  }
  return {
    backend: 'sqlite',
    storage,
    describe: () => storage.file,
    engineStore: () => Object.assign(createSqliteEngineStore(storage), { instanceId: `${hostname()}/${process.pid}`, dispose: async () => undefined }),
    monitoringStore: () => createSqliteMonitoringStore(storage.db),
    operatorAudit: () => openAuditStore(undefined, storage.db),
    scheduleOperations: () => undefined,
    demoSeed: () => demoSeedStore(sqliteReadDb(storage.db)),
    publishEvents: () => async () => undefined,
    close: async () => storage.close(),
  };
}

/** The engine store over a SQLite storage given to createEngine. */
export function sqliteEngineStore(storage: SqliteStorage): EngineStore {
  return createSqliteEngineStore(storage);
}

/** What the monitoring reads and writes over its source's store. */
export interface MonitoringParts {
  store: MonitoringStore;
  /**
   * A store shared by several processes (PostgreSQL): its schedule operations and the events of
   * every instance, the local engine's own included. Undefined for a store of one process.
   */
  sharedEngine: LocalEngine | undefined;
  /** The operator audit table (undefined: the schema has none). */
  audit: OpenedAuditStore | undefined;
  /** The alert rules' kept states (undefined: the schema has none, or the file is read-only: in memory only). */
  alertStates: AlertStateStore | undefined;
  /** Which process evaluates the alert rules and exports the store's gauges (asked only when alerts or metrics are on). */
  leadership(): AlertLeadership;
}

/**
 * The monitoring's parts over the first open store among `storages` (a PostgreSQL one first:
 * shared by many processes, its events reach this hub and its management works without a local
 * engine); `store`, when given, answers the reads instead. Undefined when none is an open store
 * and no `store` is given.
 */
export function monitoringParts(storages: readonly unknown[], local: LocalEngine | undefined, store?: MonitoringStore): MonitoringParts | undefined {
  const pg = storages.find(isPostgresStorage);
  if (pg) {
    const parts = postgresMonitoringParts(pg, local);
    return {
      store: store ?? parts.store,
      sharedEngine: parts.engine,
      audit: openAuditStore(pg, undefined),
      alertStates: openAlertStateStore(pg, undefined),
      leadership: () => postgresLeadership(pg),
    };
  }
  const db = storages.map(sqliteDbOf).find((d) => d !== undefined);
  if (!db && !store) return undefined;
  return {
    store: store ?? createSqliteMonitoringStore(db!),
    sharedEngine: undefined,
    audit: openAuditStore(undefined, db),
    alertStates: openAlertStateStore(undefined, db),
    leadership: () => SOLE_LEADERSHIP,
  };
}

/** The SQLite handle of a storage, when it has one. */
function sqliteDbOf(storage: unknown): Database | undefined {
  const db = storage && typeof storage === 'object' && 'db' in storage ? (storage as SqliteHandle).db : undefined;
  return db && typeof db.prepare === 'function' ? db : undefined;
}
