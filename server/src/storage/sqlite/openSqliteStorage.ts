import { OptionError } from '../../options/OptionError.js';
import { OptionReader } from '../../options/OptionReader.js';
import { openDatabase } from './connection/openDatabase.js';
import { startBackgroundCheckpoint } from './connection/backgroundCheckpoint.js';
import { rebuildReadModels } from './readModels/rebuildReadModels.js';
import type { SqliteStorage } from '../Storage.js';

export interface OpenSqliteStorageOptions {
  /** A file path, or ':memory:'. */
  file: string;
  /** Open an existing database read-only (standalone monitoring of another process's store). */
  readonly?: boolean;
  /** SQLite busy timeout in ms. Default 5000. */
  busyTimeoutMs?: number;
}

const KNOWN = ['file', 'readonly', 'busyTimeoutMs'] as const satisfies ReadonlyArray<keyof OpenSqliteStorageOptions>;

/**
 * Opens (and migrates, unless read-only) a SQLite store: WAL, synchronous=NORMAL, busy_timeout,
 * one connection; a writable file store checkpoints its WAL from a worker thread once it writes a
 * lot. Bad options throw an OptionError naming the option.
 */
export function openSqliteStorage(options: OpenSqliteStorageOptions): SqliteStorage {
  if (options === undefined) throw new OptionError('openSqliteStorage', 'file', 'is required (a path or ":memory:")');
  const read = new OptionReader<OpenSqliteStorageOptions>('openSqliteStorage', options, KNOWN);
  const file = read.string('file', undefined);
  if (file === undefined) throw read.fail('file', 'is required (a path or ":memory:")');
  const readonly = read.boolean('readonly', false);
  const busyTimeoutMs = read.has('busyTimeoutMs') ? read.integer('busyTimeoutMs', 0, { min: 0 }) : undefined;
  const db = openDatabase({ file, readonly, busyTimeoutMs });
  const checkpoint = readonly || file === ':memory:' ? undefined : startBackgroundCheckpoint(db, file, (err) => {
    process.emitWarning(err instanceof Error ? err.message : String(err), 'SvcMonitorStorageWarning');
  });
  let closed = false;
  return {
    file,
    db,
    readonly,
    get closed() {
      return closed;
    },
    rebuildReadModels() {
      if (readonly) throw new Error('rebuildReadModels: the storage is open read-only');
      rebuildReadModels(db);
    },
    close() {
      if (closed) return;
      closed = true;
      checkpoint?.stop();
      db.close();
    },
  };
}
