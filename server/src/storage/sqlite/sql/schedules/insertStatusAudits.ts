import type { Database } from 'better-sqlite3';
import type { AuditLevel, TaskStatus } from '../../../../contracts/index.js';
import { auditAllows } from '../../../common/auditAllows.js';
import { preparedStatement } from './preparedStatement.js';

const LEVELS: readonly AuditLevel[] = ['Full', 'ErrorsOnly', 'None'];

/**
 * The same transition, without an error, of every task row above `afterRowid` (rows this
 * transaction inserted, e.g. new occurrences → Pending), in one statement: one audit row each
 * where the row's audit level records such a transition, in the rows' insertion order.
 */
export function insertStatusAuditsAfterRowid(db: Database, afterRowid: number, newStatus: TaskStatus, atMs: number): void {
  const recorded = JSON.stringify(LEVELS.filter((level) => auditAllows(level, null)));
  preparedStatement(
    db,
    `INSERT INTO status_audit (task_id, updated_at, new_status)
       SELECT id, ?, ? FROM tasks WHERE rowid > ? AND audit_level IN (SELECT value FROM json_each(?)) ORDER BY rowid`,
  ).run(atMs, newStatus, afterRowid, recorded);
}
