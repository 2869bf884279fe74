import type { StatusAuditEntry, StatusAuditPage, TaskStatus } from '../../../contracts/index.js';
import type { PageRequest } from '../../MonitoringStore.js';
import { toIso } from '../time.js';
import { pagedRows } from './pagedRows.js';
import type { ReadDb } from './ReadDb.js';

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

/** Status audit page: newest first (id descending); counting, ordering and slicing done by the database. */
export function createPageStatusAudits(db: ReadDb) {
  // changed_by exists from schema version 6 on (a read-only SQLite store may be older).
  const columns = `id, task_id, updated_at, new_status, exception${db.features.statusAuditChangedBy ? ', changed_by' : ''}`;
  return async function pageStatusAudits(taskId: string, req: PageRequest): Promise<Omit<StatusAuditPage, 'skip' | 'take'>> {
    const { rows, totalCount } = await pagedRows<Row>(db, columns, 'FROM status_audit WHERE task_id = ?', 'id DESC', [taskId], req);
    return { audits: rows.map(toStatusAudit), totalCount };
  };
}
