import type { MonitoringStore } from '../../MonitoringStore.js';
import { createMonitoringStore } from '../../common/reads/createMonitoringStore.js';
import type { PostgresStorage } from '../PostgresStorage.js';
import { postgresReadDb } from './postgresReadDb.js';

/** The PostgreSQL implementation of the monitoring storage contract: the shared reads on the store's pool. */
export function createPostgresMonitoringStore(storage: Pick<PostgresStorage, 'query'>): MonitoringStore {
  return createMonitoringStore(postgresReadDb(storage));
}
