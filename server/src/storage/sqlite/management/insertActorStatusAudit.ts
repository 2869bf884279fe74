import type { Database } from 'better-sqlite3';
import type { AuditLevel, TaskStatus } from '../../../contracts/index.js';
import { auditAllows } from '../../common/auditAllows.js';
import { preparedStatement } from '../schedules/preparedStatement.js';

/** One status-audit row naming who made the change, subject to the task's audit level. */
export function insertActorStatusAudit(
  db: Database,
  taskId: string,
  level: AuditLevel,
  newStatus: TaskStatus,
  atMs: number,
  actor: string,
): void {
  if (!auditAllows(level, null)) return;
  preparedStatement(db, `INSERT INTO status_audit (task_id, updated_at, new_status, exception, changed_by) VALUES (?, ?, ?, NULL, ?)`).run(
    taskId,
    atMs,
    newStatus,
    actor,
  );
}
