import type { Pool, PoolClient, QueryResult, QueryResultRow } from 'pg';
import type { DatabaseClock } from './connection/databaseClock.js';
import type { PostgresEventBus } from './events/PostgresEventBus.js';

export interface PostgresTarget {
  host: string;
  port: string;
  database: string;
  user: string;
}

/** An open PostgreSQL store: a pool whose connections all work in the store's schema. */
export interface PostgresStorage {
  readonly kind: 'postgres';
  readonly pool: Pool;
  /** Schema holding every table (search_path of each pooled connection). */
  readonly schema: string;
  /** Host, port, database and user the store is connected to (no password). */
  readonly target: PostgresTarget;
  /** Migration versions this open applied (empty when another process had already applied them). */
  readonly appliedMigrations: readonly number[];
  query<R extends QueryResultRow = QueryResultRow>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  /**
   * Runs `work` in one transaction on one pooled connection (rolled back when it throws).
   * `asyncCommit`: the commit returns before its WAL is flushed (synchronous_commit off for this
   * transaction only): a server crash may undo it, never half of it.
   */
  transaction<T>(work: (client: PoolClient) => Promise<T>, options?: { asyncCommit?: boolean }): Promise<T>;
  /** The database server's clock as this host reads it (measured at open and on every engine heartbeat). */
  readonly clock: DatabaseClock;
  /** The LISTEN/NOTIFY channels shared by every process on this store (one listening connection, opened on first use). */
  readonly events: PostgresEventBus;
  /** Folds read-model deltas into the rolled-up tables; false when another process is doing it. */
  rollupReadModels(): Promise<boolean>;
  /** Recomputes every read model from the task table. */
  rebuildReadModels(): Promise<void>;
  /** The last error reported by an idle pooled connection or the listener (connection lost), if any. */
  readonly lastConnectionError: Error | undefined;
  /**
   * Registers `release`, run by close() before the pool ends: whoever keeps a connection out of
   * the pool (the alert leadership's session lock) gives it back then, since ending the pool waits
   * for every connection checked out. Returns the function that takes the registration back (its
   * holder released the connection itself).
   */
  onClose(release: () => Promise<void>): () => void;
  /** Ends the store: the connections held out of the pool are released (onClose), then the listener and the pool end. */
  close(): Promise<void>;
  readonly closed: boolean;
}
