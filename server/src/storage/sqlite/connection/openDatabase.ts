import BetterSqlite3, { type Database } from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { registerFailureFingerprint } from '../functions/failureFingerprint.js';
import { migrate } from '../migrate.js';

export interface OpenDatabaseOptions {
  /** A file path, or ':memory:'. */
  file: string;
  /** Open an existing database read-only (standalone monitoring). Default false. */
  readonly?: boolean;
  /** Fail when the file does not exist instead of creating it. Default false. */
  mustExist?: boolean;
  /** SQLite busy timeout in ms. Default 5000. */
  busyTimeoutMs?: number;
}

/**
 * Opens a SQLite database with the single-writer pragmas (WAL, synchronous=NORMAL,
 * busy_timeout, foreign keys) and brings its schema up to date (unless read-only).
 */
export function openDatabase(options: OpenDatabaseOptions): Database {
  const { file, readonly = false, mustExist = false, busyTimeoutMs = 5000 } = options;
  if (typeof file !== 'string' || file.length === 0) {
    throw new TypeError('storage option "file" must be a non-empty path or ":memory:"');
  }
  if ((mustExist || readonly) && file !== ':memory:' && !existsSync(file)) {
    throw new Error(`SQLite database file not found: ${file}`);
  }
  const db = new BetterSqlite3(file, { readonly, fileMustExist: mustExist || readonly });
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  registerFailureFingerprint(db);
  if (!readonly) {
    if (file !== ':memory:') db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
  }
  return db;
}
