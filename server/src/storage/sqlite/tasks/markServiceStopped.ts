import type { Database } from 'better-sqlite3';
import type { AuditLevel } from '../../../contracts/index.js';
import type { StatusAuditWriter } from './insertStatusAudit.js';
import type { ReadModelDeltas, TaskGroup } from '../readModels/readModelDeltas.js';
import { TASK_GROUP_COLUMNS } from '../readModels/TaskGroupColumns.js';
import { priorStatusCondition } from '../../common/statusTransitions.js';
import { UPDATE_TASK_STATUS } from './taskStatusUpdate.js';

/**
 * InProgress → ServiceStopped: the engine stopped and the run did not finish within the grace
 * period. Only on the row still carrying the run (its token); false otherwise.
 */
export function prepareMarkServiceStopped(
  db: Database,
  audit: StatusAuditWriter,
): (id: string, token: string, auditLevel: AuditLevel, now: number, deltas: ReadModelDeltas) => boolean {
  const stmt = db.prepare(`${UPDATE_TASK_STATUS} SET status = 'ServiceStopped' WHERE id = ? AND ${priorStatusCondition('markServiceStopped', 'status', 'ServiceStopped', ['InProgress'])} AND run_token = ?
    RETURNING ${TASK_GROUP_COLUMNS}`);
  return (id, token, auditLevel, now, deltas) => {
    const row = stmt.get(id, token) as TaskGroup | undefined;
    if (row === undefined) return false;
    deltas.moved(row, 'InProgress', 'ServiceStopped');
    audit(id, auditLevel, now, 'ServiceStopped');
    return true;
  };
}
