import type { QueryResultRow } from 'pg';
import type { MonitoringStore } from '../../MonitoringStore.js';
import { createMonitoringStore } from '../../common/reads/createMonitoringStore.js';
import type { PostgresStorage } from '../PostgresStorage.js';
import { postgresReadDb } from '../postgresReadDb.js';
import { pgListTasks } from './listTasks.js';
import type { PgQuery } from './PgQuery.js';
import { pgTypeResolver } from './resolveTypeNames.js';
import { pgSelectTaskIds } from './selectTaskIds.js';

/** The PostgreSQL implementation of the monitoring storage contract: the shared reads on the store's pool. */
export function createPostgresMonitoringStore(storage: Pick<PostgresStorage, 'query'>): MonitoringStore {
  const q: PgQuery = async <R extends QueryResultRow>(sql: string, params?: readonly unknown[]) =>
    (await storage.query<R>(sql, params)).rows;
  const resolver = pgTypeResolver(q);
  return createMonitoringStore(postgresReadDb(storage), {
    listTasks: pgListTasks(q, resolver),
    taskIds: pgSelectTaskIds(q, resolver),
  });
}
