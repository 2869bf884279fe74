import type { Database } from 'better-sqlite3';
import type { MonitoringStore } from '../../MonitoringStore.js';
import { createMonitoringStore } from '../../common/reads/createMonitoringStore.js';
import { sqliteReadDb } from '../sqliteReadDb.js';
import { createListTasks } from './listTasks.js';
import { createTypeResolver } from './resolveTypeNames.js';
import { createSelectTaskIds } from './selectTaskIds.js';

/** The SQLite implementation of the monitoring storage contract: the shared reads over prepared statements. */
export function createSqliteMonitoringStore(db: Database): MonitoringStore {
  const reads = sqliteReadDb(db);
  const { features } = reads;
  const resolver = createTypeResolver(db, features);
  const listTasks = createListTasks(db, resolver, features);
  const taskIds = createSelectTaskIds(db, resolver, features);
  // These reads answer synchronously inside; the contract is Promise-returning.
  return createMonitoringStore(reads, {
    listTasks: async (query) => listTasks(query),
    taskIds: async (filter, limit) => taskIds(filter, limit),
  });
}
