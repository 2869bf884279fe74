import type { Database } from 'better-sqlite3';
import type { AuditLevel } from '../../contracts/index.js';
import type { StatusAuditWriter } from './insertStatusAudit.js';
import type { ReadModelDeltas, TaskGroup } from './readModels/ReadModelDeltas.js';
import { TASK_GROUP_COLUMNS } from './readModels/TaskGroupColumns.js';

/**
 * Recovery at start: rows left InProgress (a crash) or ServiceStopped → Queued (delivery is at
 * least once); throttle marks of Queued rows are dropped (budgets live in memory). Queued and
 * WaitingQueue rows need no move: the dispatcher claims and admits them. Returns the rows re-queued.
 */
export function prepareRecoverTasks(db: Database, audit: StatusAuditWriter): (now: number, deltas: ReadModelDeltas) => number {
  const select = db.prepare(`SELECT id, audit_level, status, ${TASK_GROUP_COLUMNS} FROM tasks WHERE status IN ('InProgress', 'ServiceStopped')`);
  const update = db.prepare(`UPDATE tasks SET status = 'Queued' WHERE id = ? AND status IN ('InProgress', 'ServiceStopped')`);
  const unthrottle = db.prepare(`UPDATE tasks SET throttled_until = NULL WHERE throttled_until IS NOT NULL AND status = 'Queued'`);
  return (now, deltas) => {
    const rows = select.all() as (TaskGroup & { id: string; audit_level: AuditLevel; status: string })[];
    for (const r of rows) {
      if (update.run(r.id).changes === 1) {
        audit(r.id, r.audit_level, now, 'Queued');
        deltas.moved(r, r.status, 'Queued');
      }
    }
    unthrottle.run();
    return rows.length;
  };
}
