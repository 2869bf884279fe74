import type { StatusAuditEntry, StatusAuditPage, TaskStatus } from '../../../contracts/index.js';
import type { PageRequest } from '../../MonitoringStore.js';
import { toIso } from '../time.js';
import { pagedRows } from './pagedRows.js';
import { COMPACT_ROWID_BASE, RECORDS_PENDING, PENDING_OCCURRENCE_TASKS, pendingOccurrenceReads } from './pendingOccurrenceReads.js';
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
  // A compact occurrence's one entry: Pending at its creation time, where its audit level records
  // it; its id is the occurrence's view rowid (larger than any audit row's; it gets a real one when the occurrence becomes a task row).
  const compact = pendingOccurrenceReads(db) && `SELECT rowid AS id, id AS task_id, created_at AS updated_at, 'Pending' AS new_status, NULL AS exception
      FROM ${PENDING_OCCURRENCE_TASKS} WHERE id = ? AND ${RECORDS_PENDING}`;
  return async function pageStatusAudits(taskId: string, req: PageRequest): Promise<Omit<StatusAuditPage, 'skip' | 'take'>> {
    const { rows, totalCount } = await pagedRows<Row>(db, columns, 'FROM status_audit WHERE task_id = ?', 'id DESC', [taskId], req);
    if (totalCount === 0 && compact) {
      // No audit row: the task may be a compact occurrence (an indexed lookup by id).
      const [entry] = await db.query<Row>(compact, [taskId]);
      if (entry) return { audits: req.skip === 0 && req.take > 0 ? [toStatusAudit(entry)] : [], totalCount: 1 };
    }
    return { audits: rows.map(toStatusAudit), totalCount };
  };
}
