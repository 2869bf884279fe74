import type { Database } from 'better-sqlite3';
import type { AlertStateStore } from './AlertStateStore.js';
import { createAlertStateStore } from './common/alerts/alertStateRows.js';
import type { PostgresStorage } from './postgres/PostgresStorage.js';
import { postgresReadDb } from './postgres/monitoring/postgresReadDb.js';
import { sqliteReadDb } from './sqlite/monitoring/sqliteReadDb.js';

/**
 * The alert states of the monitoring's store: PostgreSQL's, or the SQLite file's when it has the
 * table and is writable (a file opened read-only, or migrated by an older build: undefined, and
 * the states live in memory only).
 */
export function openAlertStateStore(pg: PostgresStorage | undefined, sqlite: Database | undefined): AlertStateStore | undefined {
  if (pg) return createAlertStateStore(postgresReadDb(pg));
  if (!sqlite || sqlite.readonly) return undefined;
  const table = sqlite.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alert_states'`).get();
  return table === undefined ? undefined : createAlertStateStore(sqliteReadDb(sqlite));
}
