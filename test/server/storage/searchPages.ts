import BetterSqlite3 from 'better-sqlite3';
import { createSqliteMonitoringStore, migrate, migrations } from '../../../server/src/index.js';
import { registerFailureFingerprint } from '../../../server/src/storage/sqlite/functions/failureFingerprint.js';
import type { TaskListQuery } from '../../../server/src/storage/MonitoringStore.js';

/** A SQLite file opened raw and migrated only up to `version` (an older file to migrate later). */
export function rawFileAtVersion(file: string, version: number): BetterSqlite3.Database {
  const raw = new BetterSqlite3(file);
  registerFailureFingerprint(raw);
  const applied = migrate(raw, migrations.filter((m) => m.version <= version));
  if (applied !== version) throw new Error(`expected the file at version ${version}, got ${applied}`);
  return raw;
}

/** Pages 1…`pageCount` of the store's answer to `query`, their ids concatenated, and the total it reports. */
export async function allPages(db: BetterSqlite3.Database, query: Omit<TaskListQuery, 'page'>, pageCount: number) {
  const store = createSqliteMonitoringStore(db);
  const ids: string[] = [];
  let total = -1;
  for (let page = 1; page <= pageCount; page++) {
    const r = await store.listTasks({ ...query, page });
    total = r.totalCount;
    ids.push(...r.items.map((t) => t.id));
  }
  return { ids, total };
}
