import type { Database } from 'better-sqlite3';
import { createOperatorAuditStore } from './common/audit/operatorAuditRows.js';
import type { OperatorAuditStore } from './OperatorAuditStore.js';
import type { PostgresStorage } from './postgres/PostgresStorage.js';
import { postgresReadDb } from './postgres/monitoring/postgresReadDb.js';
import { sqliteReadDb } from './sqlite/monitoring/sqliteReadDb.js';

/** The audit table of a store, and whether this process may append to it. */
export interface OpenedAuditStore {
  store: OperatorAuditStore;
  /** False on a SQLite file opened read-only (`serve --db`): records then go to the log only. */
  writable: boolean;
}

/**
 * The operator audit table of the monitoring's store: PostgreSQL's, or the SQLite file's when its
 * schema has one (a file migrated by an older build and opened read-only has none: undefined).
 */
export function openAuditStore(pg: PostgresStorage | undefined, sqlite: Database | undefined): OpenedAuditStore | undefined {
  if (pg) return { store: createOperatorAuditStore(postgresReadDb(pg)), writable: true };
  if (!sqlite) return undefined;
  const table = sqlite.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'operator_audit'`).get();
  return table === undefined ? undefined : { store: createOperatorAuditStore(sqliteReadDb(sqlite)), writable: !sqlite.readonly };
}
