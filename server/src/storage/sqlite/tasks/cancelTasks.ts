import type { Database } from 'better-sqlite3';
import type { AuditLevel, TaskStatus } from '../../../contracts/index.js';
import type { StatusAuditWriter } from './insertStatusAudit.js';
import type { ReadModelDeltas, TaskGroup } from '../readModels/readModelDeltas.js';
import { TASK_GROUP_COLUMNS } from '../readModels/TaskGroupColumns.js';
import { checkTransition } from '../../common/statusTransitions.js';
import { UPDATE_TASK_STATUS } from './taskStatusUpdate.js';

const NOT_STARTED: readonly string[] = ['Pending', 'Queued', 'WaitingQueue'];

/** Pending, Queued or WaitingQueue → Cancelled. Returns false when the row was in another status. */
export function prepareCancelTasks(
  db: Database,
  audit: StatusAuditWriter,
): (id: string, auditLevel: AuditLevel, now: number, deltas: ReadModelDeltas) => boolean {
  const select = db.prepare(`SELECT status, ${TASK_GROUP_COLUMNS} FROM tasks WHERE id = ?`);
  const stmt = db.prepare(`${UPDATE_TASK_STATUS} SET status = 'Cancelled', throttled_until = NULL, reserved_by = NULL, reserved_at = NULL WHERE id = ? AND status = ?`);
  return (id, auditLevel, now, deltas) => {
    const row = select.get(id) as (TaskGroup & { status: string }) | undefined;
    if (row === undefined || !NOT_STARTED.includes(row.status)) return false;
    if (!checkTransition('cancelWaitingTask', row.status, 'Cancelled', [id]) || stmt.run(id, row.status).changes !== 1) return false;
    deltas.moved(row, row.status, 'Cancelled');
    audit(id, auditLevel, now, 'Cancelled' satisfies TaskStatus);
    return true;
  };
}
