import type { Database } from 'better-sqlite3';

/**
 * The storage contract shared by the engine (writes) and the monitoring queries (reads).
 * The SQLite implementation is the only one today: `openSqliteStorage`.
 */
export interface SqliteStorage {
  /** The file path given at open (or ':memory:'). */
  readonly file: string;
  /** The single connection: the engine's writer, or a read-only reader. */
  readonly db: Database;
  readonly readonly: boolean;
  /** Recomputes every read model (stat_* tables) from the task table in one transaction. */
  rebuildReadModels(): void;
  /** Closes the connection (idempotent). */
  close(): void;
  readonly closed: boolean;
}
