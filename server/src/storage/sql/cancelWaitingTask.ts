import type { Database } from 'better-sqlite3';
import type { AuditLevel, TaskStatus } from '../../contracts/index.js';
import type { StatusAuditWriter } from './insertStatusAudit.js';

/** Pending, Queued or WaitingQueue → Cancelled. Returns false when the row was in another status. */
export function prepareCancelWaitingTask(
  db: Database,
  audit: StatusAuditWriter,
): (id: string, auditLevel: AuditLevel, now: number) => boolean {
  const stmt = db.prepare(`UPDATE tasks SET status = 'Cancelled', throttled_until = NULL
    WHERE id = ? AND status IN ('Pending', 'Queued', 'WaitingQueue')`);
  return (id, auditLevel, now) => {
    if (stmt.run(id).changes !== 1) return false;
    audit(id, auditLevel, now, 'Cancelled' satisfies TaskStatus);
    return true;
  };
}
