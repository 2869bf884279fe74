import type { Database } from 'better-sqlite3';
import type { MonitoringStore } from '../../MonitoringStore.js';
import { createMonitoringStore } from '../../common/reads/createMonitoringStore.js';
import { sqliteReadDb } from './sqliteReadDb.js';

/** The SQLite implementation of the monitoring storage contract: the shared reads over prepared statements. */
export function createSqliteMonitoringStore(db: Database): MonitoringStore {
  return createMonitoringStore(sqliteReadDb(db));
}
