import type { Database } from 'better-sqlite3';
import type { StatusAuditEntry, StatusAuditPage, TaskStatus } from '../../contracts/index.js';
import type { PageRequest } from '../MonitoringStore.js';
import { toIso } from '../time.js';

interface Row {
  id: number;
  task_id: string;
  updated_at: number;
  new_status: TaskStatus;
  exception: string | null;
  changed_by?: string | null;
}

export const toStatusAudit = (r: Row): StatusAuditEntry => ({
  id: r.id,
  queuedTaskId: r.task_id,
  updatedAtUtc: toIso(r.updated_at),
  newStatus: r.new_status,
  exception: r.exception ?? undefined,
  changedBy: r.changed_by ?? undefined,
});

/** Status audit page: newest first (id descending); counting, ordering and slicing done by SQLite. */
export function createPageStatusAudits(db: Database) {
  // changed_by exists from schema version 6 on (a read-only store may be older).
  const hasChangedBy = (db.prepare(`SELECT COUNT(*) FROM pragma_table_info('status_audit') WHERE name = 'changed_by'`).pluck().get() as number) > 0;
  const page = db.prepare(
    `SELECT id, task_id, updated_at, new_status, exception${hasChangedBy ? ', changed_by' : ''} FROM status_audit WHERE task_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`,
  );
  const count = db.prepare(`SELECT COUNT(*) FROM status_audit WHERE task_id = ?`).pluck();
  return function pageStatusAudits(taskId: string, req: PageRequest): Omit<StatusAuditPage, 'skip' | 'take'> {
    const totalCount = count.get(taskId) as number;
    const audits = req.take === 0 ? [] : (page.all(taskId, req.take, req.skip) as Row[]).map(toStatusAudit);
    return { audits, totalCount };
  };
}
