import type { Database } from 'better-sqlite3';
import { createOperatorAuditStore } from '../../storage/common/audit/operatorAuditRows.js';
import type { OperatorAuditStore } from '../../storage/OperatorAuditStore.js';
import type { PostgresStorage } from '../../storage/postgres/PostgresStorage.js';
import { postgresReadDb } from '../../storage/postgres/postgresReadDb.js';
import { sqliteReadDb } from '../../storage/sqlite/sqliteReadDb.js';

/**
 * The operator audit table of the monitoring's store: PostgreSQL's, or the SQLite file's when its
 * schema has one (a file migrated by an older build, opened read-only, has none: undefined).
 */
export function openAuditStore(pg: PostgresStorage | undefined, sqlite: Database | undefined): OperatorAuditStore | undefined {
  if (pg) return createOperatorAuditStore(postgresReadDb(pg));
  if (!sqlite) return undefined;
  const table = sqlite.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'operator_audit'`).get();
  return table === undefined ? undefined : createOperatorAuditStore(sqliteReadDb(sqlite));
}
