import { openDatabase } from '../openDatabase.js';
import { rebuildReadModelsSql } from '../migrations/002_readModels.js';
import { rebuildFailureGroupsSql } from '../migrations/006_search_failures_latency.js';
import type { SqliteStorage } from '../Storage.js';

export interface OpenSqliteStorageOptions {
  /** A file path, or ':memory:'. */
  file: string;
  /** Open an existing database read-only (standalone monitoring of another process's store). */
  readonly?: boolean;
  /** SQLite busy timeout in ms. Default 5000. */
  busyTimeoutMs?: number;
}

const KNOWN = new Set(['file', 'readonly', 'busyTimeoutMs']);

/**
 * Opens (and migrates, unless read-only) a SQLite store: WAL, synchronous=NORMAL, busy_timeout,
 * one connection. Bad options throw an Error naming the option.
 */
export function openSqliteStorage(options: OpenSqliteStorageOptions): SqliteStorage {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('openSqliteStorage: options object with "file" is required');
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw new TypeError(`openSqliteStorage: unknown option "${key}"`);
  }
  if (typeof options.file !== 'string' || options.file.length === 0) {
    throw new TypeError('openSqliteStorage: option "file" must be a non-empty path or ":memory:"');
  }
  if (options.readonly !== undefined && typeof options.readonly !== 'boolean') {
    throw new TypeError('openSqliteStorage: option "readonly" must be a boolean');
  }
  if (options.busyTimeoutMs !== undefined && (!Number.isInteger(options.busyTimeoutMs) || options.busyTimeoutMs < 0)) {
    throw new TypeError('openSqliteStorage: option "busyTimeoutMs" must be a non-negative integer');
  }
  const readonly = options.readonly ?? false;
  const db = openDatabase({ file: options.file, readonly, busyTimeoutMs: options.busyTimeoutMs });
  let closed = false;
  return {
    file: options.file,
    db,
    readonly,
    get closed() {
      return closed;
    },
    rebuildReadModels() {
      if (readonly) throw new Error('rebuildReadModels: the storage is open read-only');
      db.transaction(() => {
        db.exec(rebuildReadModelsSql);
        db.exec(rebuildFailureGroupsSql);
      }).immediate();
    },
    close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
