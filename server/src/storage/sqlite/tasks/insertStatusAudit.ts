import type { Database } from 'better-sqlite3';
import type { AuditLevel, TaskStatus } from '../../../contracts/index.js';
import { auditAllows } from '../../common/auditAllows.js';

export type StatusAuditWriter = (
  taskId: string,
  level: AuditLevel,
  at: number,
  newStatus: TaskStatus,
  exception?: string | null,
) => void;

/** Appends one status_audit row for a transition, subject to the task's audit level. */
export function prepareInsertStatusAudit(db: Database): StatusAuditWriter {
  const stmt = db.prepare('INSERT INTO status_audit (task_id, updated_at, new_status, exception) VALUES (?, ?, ?, ?)');
  return (taskId, level, at, newStatus, exception) => {
    if (!auditAllows(level, exception)) return;
    stmt.run(taskId, at, newStatus, exception ?? null);
  };
}
