import type { Database } from 'better-sqlite3';
import type { AuditLevel, TaskStatus } from '../../../contracts/index.js';
import { auditAllows } from '../../common/auditAllows.js';
import { preparedStatement } from './preparedStatement.js';

/**
 * Writes the status-audit row of a transition when the row's audit level records it (the
 * engine's auditAllows rule), with a statement cached per connection.
 */
export function insertStatusAudit(
  db: Database,
  taskId: string,
  auditLevel: AuditLevel,
  newStatus: TaskStatus,
  atMs: number,
  exception: string | null = null,
): void {
  if (!auditAllows(auditLevel, exception)) return;
  preparedStatement(db, 'INSERT INTO status_audit (task_id, updated_at, new_status, exception) VALUES (?, ?, ?, ?)').run(
    taskId,
    atMs,
    newStatus,
    exception,
  );
}
