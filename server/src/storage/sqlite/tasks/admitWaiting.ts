import type { Database } from 'better-sqlite3';
import type { AuditLevel } from '../../../contracts/index.js';
import type { StatusAuditWriter } from './insertStatusAudit.js';
import { prepareLimitedSelect } from './limitedSelect.js';
import type { ReadModelDeltas, TaskGroup } from '../readModels/readModelDeltas.js';
import { TASK_GROUP_COLUMNS } from '../readModels/TaskGroupColumns.js';
import { priorStatusCondition } from '../../common/statusTransitions.js';
import { UPDATE_TASK_STATUS } from './taskStatusUpdate.js';

/** WaitingQueue → Queued for the oldest `room` rows of a queue. Returns how many were admitted. */
export function prepareAdmitWaiting(
  db: Database,
  audit: StatusAuditWriter,
): (queue: string, room: number, now: number, deltas: ReadModelDeltas) => number {
  const select = prepareLimitedSelect(db, (limit) => `SELECT id, audit_level, ${TASK_GROUP_COLUMNS} FROM tasks
    WHERE queue = ? AND status = 'WaitingQueue' ORDER BY created_at LIMIT ${limit}`);
  const update = db.prepare(`${UPDATE_TASK_STATUS} SET status = 'Queued' WHERE id = ? AND ${priorStatusCondition('admitWaitingTasks', 'status', 'Queued', ['WaitingQueue'])}`);
  return (queue, room, now, deltas) => {
    if (room <= 0) return 0;
    const rows = select(room, queue) as (TaskGroup & { id: string; audit_level: AuditLevel })[];
    let n = 0;
    for (const r of rows) {
      if (update.run(r.id).changes === 1) {
        audit(r.id, r.audit_level, now, 'Queued');
        deltas.moved(r, 'WaitingQueue', 'Queued');
        n++;
      }
    }
    return n;
  };
}
