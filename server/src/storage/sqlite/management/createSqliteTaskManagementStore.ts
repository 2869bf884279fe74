import type { OperationResult } from '../../../contracts/index.js';
import type { Database } from 'better-sqlite3';
import type { TaskState } from '../../EngineStore.js';
import { actionRefusal } from '../../common/actionRefusal.js';
import { auditAllows } from '../../common/auditAllows.js';
import { insertActorStatusAudit } from './insertActorStatusAudit.js';
import { insertActorStatusAudits } from './insertActorStatusAudits.js';
import { selectManagedTask } from './selectManagedTask.js';
import { requeueTaskNow } from './requeueTaskNow.js';
import { managedGroup } from './managedGroup.js';
import { selectBulkCandidates } from './selectBulkCandidates.js';
import { setTasksStatus } from './setTasksStatus.js';
import { taskWriter } from '../readModels/taskWriter.js';
import { hasPendingOccurrences, spillPendingOccurrences } from '../schedules/spillPendingOccurrences.js';
import { BULK_ACTION_STATUSES, type BulkBatchResult, type TaskManagementStore } from '../../TaskManagementStore.js';

/**
 * The SQLite implementation of the retry and bulk writes, on the engine's writer connection.
 *
 * A compact Pending occurrence (migration 15) among the targets first becomes the task row it
 * stands for (`spillPendingOccurrences`, in the same transaction), so that every rule below acts
 * on it exactly as on that row: a retry refuses it as Pending, a bulk cancel cancels it.
 */
export function createSqliteTaskManagementStore(db: Database): TaskManagementStore {
  const write = taskWriter(db);
  const compact = hasPendingOccurrences(db);
  return {
    async retryTask({ id, now, actor }): Promise<OperationResult> {
      return write((deltas): OperationResult => {
        if (compact) spillPendingOccurrences(db, deltas, { ids: [id] });
        const row = selectManagedTask(db, id);
        if (!row) return { status: 'NotFound', message: `Task ${id} was not found.`, taskId: id };
        const refusal = actionRefusal('retry', row);
        if (refusal !== undefined) return { status: 'Conflict', message: refusal, taskId: row.id };
        if (!requeueTaskNow(db, deltas, row, BULK_ACTION_STATUSES.retry, now)) {
          return { status: 'Conflict', message: 'The task changed status meanwhile; it is no longer finished.', taskId: row.id };
        }
        insertActorStatusAudit(db, row.id, row.audit_level, 'Queued', now, actor);
        return { status: 'Succeeded', message: `The task is back in the queue (retried by ${actor}).`, taskId: row.id };
      });
    },

    async applyBulkBatch({ action, ids, now, actor, statuses }): Promise<BulkBatchResult> {
      const allowed = statuses && statuses.length > 0 ? BULK_ACTION_STATUSES[action].filter((s) => statuses.includes(s)) : BULK_ACTION_STATUSES[action];
      const target = action === 'cancel' ? 'Cancelled' : 'Queued';
      return write((deltas): BulkBatchResult => {
        // Set-based: one read of the rows that qualify, one UPDATE, one audit insert. The
        // transaction holds the writer, so the rows read are the rows changed. Compact occurrences
        // are Pending: only an action that applies to Pending rows (cancel) needs them as task rows.
        if (compact && allowed.includes('Pending')) spillPendingOccurrences(db, deltas, { ids });
        const rows = selectBulkCandidates(db, action, ids, allowed);
        const changedIds = rows.map((r) => r.id);
        const changed = setTasksStatus(db, changedIds, allowed, target, now);
        if (changed !== rows.length) throw new Error(`bulk ${action}: ${rows.length} rows qualified but ${changed} changed`);
        for (const r of rows) deltas.moved(managedGroup(r), r.status, target);
        insertActorStatusAudits(db, rows.filter((r) => auditAllows(r.audit_level, null)).map((r) => r.id), target, now, actor);
        return {
          succeeded: rows.length,
          skipped: ids.length - rows.length,
          cancelled:
            action === 'cancel'
              ? rows.map((r): TaskState => ({
                  id: r.id,
                  type: r.type,
                  handler: r.handler,
                  request: r.request,
                  queue: r.queue,
                  status: 'Cancelled',
                  audit_level: r.audit_level,
                  parent_task_id: r.parent_task_id,
                  is_schedule: 0,
                }))
              : [],
        };
      });
    },
  };
}
