import type { Database } from 'better-sqlite3';
import type { AuditLevel } from '../../contracts/index.js';
import type { StatusAuditWriter } from './insertStatusAudit.js';

/** InProgress → ServiceStopped: the engine stopped and the run did not finish within the grace period. */
export function prepareMarkServiceStopped(
  db: Database,
  audit: StatusAuditWriter,
): (id: string, auditLevel: AuditLevel, now: number) => boolean {
  const stmt = db.prepare(`UPDATE tasks SET status = 'ServiceStopped' WHERE id = ? AND status = 'InProgress'`);
  return (id, auditLevel, now) => {
    if (stmt.run(id).changes !== 1) return false;
    audit(id, auditLevel, now, 'ServiceStopped');
    return true;
  };
}
