import type { Database } from 'better-sqlite3';
import type { AuditLevel } from '../../../contracts/index.js';
import type { StatusAuditWriter } from './insertStatusAudit.js';
import { prepareLimitedSelect } from './limitedSelect.js';
import { IS_SCHEDULE_ROW } from './TaskRow.js';
import type { ReadModelDeltas, TaskGroup } from '../readModels/readModelDeltas.js';
import { TASK_GROUP_COLUMNS } from '../readModels/TaskGroupColumns.js';
import { checkTransition } from '../../common/statusTransitions.js';
import { UPDATE_TASK_STATUS } from './taskStatusUpdate.js';
import { spillPendingOccurrences } from '../schedules/spillPendingOccurrences.js';

/** Chooses Queued or WaitingQueue for a row of `queue` (capacity check, counted by the caller). */
export type AdmissionDecider = (queue: string) => 'Queued' | 'WaitingQueue';

/**
 * Pending rows whose due time has come → Queued (or WaitingQueue when the queue is at capacity).
 * Due compact occurrences (`compact`: the store has them, migration 15) first become task rows,
 * as many as the limit, oldest due first.
 */
export function preparePromoteDue(
  db: Database,
  audit: StatusAuditWriter,
  compact: boolean,
): (now: number, limit: number, decide: AdmissionDecider, deltas: ReadModelDeltas) => number {
  // Pinned to the due-work index (Pending rows by due time): without statistics the planner
  // prefers the status index and sorts every Pending row, a million after a large catch-up.
  const select = prepareLimitedSelect(db, (limit) => `SELECT id, audit_level, ${TASK_GROUP_COLUMNS} FROM tasks INDEXED BY ix_tasks_pending_due
    WHERE status = 'Pending' AND scheduled_at <= ? AND NOT ${IS_SCHEDULE_ROW}
    ORDER BY scheduled_at LIMIT ${limit}`);
  const update = db.prepare(`${UPDATE_TASK_STATUS} SET status = ? WHERE id = ? AND status = 'Pending'`);
  return (now, limit, decide, deltas) => {
    if (compact) spillPendingOccurrences(db, deltas, { due: now }, limit);
    const rows = select(limit, now) as (TaskGroup & { id: string; audit_level: AuditLevel })[];
    for (const r of rows) {
      const status = decide(r.queue);
      if (checkTransition('promoteDueTasks', 'Pending', status, [r.id]) && update.run(status, r.id).changes === 1) {
        audit(r.id, r.audit_level, now, status);
        deltas.moved(r, 'Pending', status);
      }
    }
    return rows.length;
  };
}
