import { OptionError } from '../../options/OptionError.js';
import { OptionReader } from '../../options/OptionReader.js';
import pg from 'pg';
import type { PoolClient, QueryResultRow } from 'pg';
import { DatabaseClock, DB_NOW_MS } from './connection/databaseClock.js';
import { describeConnectionError, describeTarget } from './connection/describeConnectionError.js';
import { PostgresEventBus } from './events/PostgresEventBus.js';
import { inTransaction, withClient } from './connection/storeClient.js';
import { migratePostgres } from './migrate.js';
import { keptCounters } from './readModels/keptCounters.js';
import { pgRebuildReadModelsSql } from './readModels/rebuildReadModels.js';
import { pgRollupReadModelsSql } from './readModels/readModelRollup.js';
import type { PostgresStorage, PostgresTarget } from './PostgresStorage.js';

export interface OpenPostgresStorageOptions {
  /** postgres://user:password@host:port/database */
  connectionString: string;
  /** Schema holding the tables, created when missing. Default 'svc_monitor'. */
  schema?: string;
  /** Connections in the pool. Default 10. */
  poolSize?: number;
  /** How long opening a connection may take, in ms. Default 5000. */
  connectTimeoutMs?: number;
  /** Period of the read-model roll-up in ms; 0 turns it off (another process rolls up). Default 1000. */
  rollupIntervalMs?: number;
  /**
   * PostgreSQL's `idle_in_transaction_session_timeout` for every session of this store, in ms:
   * the server ends a session left idle inside a transaction this long, so a process frozen
   * mid-transaction (SIGSTOP, a stalled VM) cannot hold the row and advisory locks that lease
   * recovery needs. Keep it a few times the engine's lease. Given, it wins over the server's,
   * database's or role's setting (0 turns it off); not given, 90000 (three times the default
   * lease of 30 s) applies to a session where none of those set one.
   */
  idleInTransactionTimeoutMs?: number;
}

const OWNER = 'openPostgresStorage';
const KNOWN = ['connectionString', 'schema', 'poolSize', 'connectTimeoutMs', 'rollupIntervalMs', 'idleInTransactionTimeoutMs'] as const satisfies ReadonlyArray<keyof OpenPostgresStorageOptions>;
/** Three times the engine's default lease (30 s): see `idleInTransactionTimeoutMs`. */
export const DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT_MS = 90_000;
/** The store's sessions' `effective_io_concurrency` at least: heap pages a bitmap scan asks the kernel for ahead. */
export const READ_AHEAD_PAGES = 64;
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const INT8 = 20;
const NUMERIC = 1700;

/** BIGINT columns (instants in ms, counts) and SUMs of them come back as numbers, not strings. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (v: string) => (v === null ? null : Number(v));
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

/** Rejects bad options with an OptionError naming the option. */
function validate(options: OpenPostgresStorageOptions): Required<Omit<OpenPostgresStorageOptions, 'idleInTransactionTimeoutMs'>> & { idleInTransactionTimeoutMs: number | undefined } {
  if (options === undefined) throw new OptionError(OWNER, 'connectionString', 'is required (a postgres:// URL)');
  const read = new OptionReader<OpenPostgresStorageOptions>(OWNER, options, KNOWN);
  const connectionString = read.string('connectionString', undefined);
  if (connectionString === undefined) throw read.fail('connectionString', 'must be a postgres:// URL');
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    throw read.fail('connectionString', 'is not a valid URL (expected postgres://user:password@host:5432/database)');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw read.fail('connectionString', `must start with postgres:// (got ${url.protocol}//)`);
  }
  if (url.hostname === '' && !url.searchParams.has('host')) {
    throw read.fail('connectionString', 'names no host (postgres://user@host:5432/database)');
  }
  const schema = read.string('schema', 'svc_monitor');
  if (!SCHEMA_NAME.test(schema)) throw read.fail('schema', 'must be an identifier (letters, digits, _; at most 63)');
  return {
    connectionString,
    schema,
    poolSize: read.integer('poolSize', 10, { min: 1 }),
    connectTimeoutMs: read.integer('connectTimeoutMs', 5000, { min: 1 }),
    rollupIntervalMs: read.integer('rollupIntervalMs', 1000, { min: 0 }),
    idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs === undefined ? undefined : read.integer('idleInTransactionTimeoutMs', 0, { min: 0 }),
  };
}

/**
 * Opens a PostgreSQL store: a pool of `poolSize` connections working in `schema`, brought up to
 * date by the versioned migrations (under an advisory lock: instances starting together migrate
 * once). A bad connection string, an unreachable server or a refused login fails here with a
 * message naming the host and the cause.
 */
export async function openPostgresStorage(options: OpenPostgresStorageOptions): Promise<PostgresStorage> {
  const o = validate(options);
  let lastConnectionError: Error | undefined;
  // Every pooled connection listens for its own errors for its whole life. The pool listens only
  // while a connection is idle; a server that ends a checked-out connection between two statements
  // (pg_terminate_backend, a restart) would otherwise raise an 'error' event nobody hears, which
  // ends the host process. The holder learns of the loss from its next statement, which fails.
  class ListenedClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      this.on('error', (err: Error) => {
        lastConnectionError = err;
      });
    }
  }
  const target: PostgresTarget = describeTarget(o.connectionString);
  const searchPath = `-c search_path="${o.schema}"`;
  // The pool's sessions run without JIT compilation (decision "the store's statements are not JIT
  // compiled"): its statements last milliseconds, and one the planner costs high would spend tens
  // of milliseconds compiling before it runs, each time. Nor with parallel workers (decision "the
  // store's PostgreSQL statements run without parallel workers"): starting them costs a statement
  // of milliseconds more than they save, and they take the cores the engine and the API need.
  const sessionOptions = `${searchPath} -c jit=off -c max_parallel_workers_per_gather=0`;
  const pool = new pg.Pool({
    Client: ListenedClient,
    connectionString: o.connectionString,
    max: o.poolSize,
    connectionTimeoutMillis: o.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    options: o.idleInTransactionTimeoutMs === undefined ? sessionOptions : `${sessionOptions} -c idle_in_transaction_session_timeout=${o.idleInTransactionTimeoutMs}`,
    types,
    application_name: 'svc-monitor',
    // Set up before the pool hands the new connection to its first user (a statement sent beside
    // the user's would be a second query on a busy client, which the driver deprecates). Each
    // setting that fails leaves the session as the server made it.
    onConnect: async (client: pg.ClientBase) => {
      // Without the option, a default for sessions the server or role leaves at 0 (no limit).
      if (o.idleInTransactionTimeoutMs === undefined) {
        await client.query(
          `SELECT set_config('idle_in_transaction_session_timeout', $1, false) WHERE current_setting('idle_in_transaction_session_timeout') = '0'`,
          [String(DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT_MS)],
        ).then(() => undefined, () => undefined);
      }
      // Read-ahead of the heap pages a bitmap scan will visit (decision "the store's PostgreSQL
      // sessions read ahead the pages of a bitmap scan"), where the server or role asks for less.
      // A server without posix_fadvise refuses any value but 0: its sessions keep theirs.
      await client.query(
        `SELECT set_config('effective_io_concurrency', $1, false) WHERE current_setting('effective_io_concurrency')::int < $2::int`,
        [String(READ_AHEAD_PAGES), READ_AHEAD_PAGES],
      ).then(() => undefined, () => undefined);
    },
  });
  // An idle pooled connection that dies (server restart, network) is dropped and replaced on the
  // next checkout; the error is kept for health reporting instead of crashing the process.
  pool.on('error', (err) => {
    lastConnectionError = err;
  });

  try {
    (await pool.connect()).release();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new Error(`openPostgresStorage: ${describeConnectionError(err, target)}`);
  }
  let applied: number[];
  try {
    // On a checked-out connection with its own error listener: one the server ends mid-migration
    // fails the open instead of raising an uncaught 'error' event in the host.
    applied = await withClient(pool, (c) => migratePostgres(c, o.schema));
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new Error(`openPostgresStorage: ${(err as Error).message}`);
  }

  // The first reading of the database's clock, before any engine takes a time from it.
  const clock = new DatabaseClock();
  try {
    await clock.measure(async () => (await pool.query<{ now: number }>(`SELECT ${DB_NOW_MS} AS now`)).rows[0]!.now);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new Error(`openPostgresStorage: ${describeConnectionError(err, target)}`);
  }

  const events = new PostgresEventBus({
    connectionString: o.connectionString,
    searchPath,
    types,
    target,
    query: (sql, params) => pool.query(sql, params as unknown[]),
    onConnectionError: (err) => {
      lastConnectionError = err;
    },
  });

  let closed = false;
  const releasedOnClose = new Set<() => Promise<void>>();
  const transaction = <T>(work: (c: PoolClient) => Promise<T>, options: { asyncCommit?: boolean } = {}): Promise<T> =>
    inTransaction(pool, work, options);
  const rollupReadModels = () =>
    transaction(async (c) => {
      const { rows } = await c.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext('svc_monitor.rollup:' || $1)) AS ok`, [
        o.schema,
      ]);
      if (!rows[0]?.ok) return false;
      await c.query(pgRollupReadModelsSql(keptCounters(storage)));
      return true;
    });

  let rollupTimer: NodeJS.Timeout | undefined;
  let rolling = false;
  if (o.rollupIntervalMs > 0) {
    rollupTimer = setInterval(() => {
      if (rolling || closed) return;
      rolling = true;
      rollupReadModels()
        .catch((err: Error) => {
          lastConnectionError = err;
        })
        .finally(() => {
          rolling = false;
        });
    }, o.rollupIntervalMs);
    rollupTimer.unref();
  }

  const storage: PostgresStorage = {
    kind: 'postgres',
    pool,
    schema: o.schema,
    target,
    appliedMigrations: applied,
    clock,
    events,
    get lastConnectionError() {
      return lastConnectionError;
    },
    get closed() {
      return closed;
    },
    query: <R extends QueryResultRow>(sql: string, params?: readonly unknown[]) => pool.query<R>(sql, params as unknown[] | undefined),
    transaction,
    rollupReadModels,
    async rebuildReadModels() {
      await transaction(async (c) => {
        await c.query(`SELECT pg_advisory_xact_lock(hashtext('svc_monitor.rollup:' || $1))`, [o.schema]);
        await c.query(pgRebuildReadModelsSql(keptCounters(storage)));
      });
    },
    onClose(release) {
      const entry = () => release();
      releasedOnClose.add(entry);
      return () => {
        releasedOnClose.delete(entry);
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      if (rollupTimer) clearInterval(rollupTimer);
      // A connection held out of the pool would keep pool.end() waiting for ever; a holder that
      // fails to release it cleanly still gives it back (its release ends the connection).
      const held = [...releasedOnClose];
      releasedOnClose.clear();
      await Promise.all(held.map((release) => release().catch(() => undefined)));
      await events.close();
      await pool.end();
    },
  };
  return storage;
}
