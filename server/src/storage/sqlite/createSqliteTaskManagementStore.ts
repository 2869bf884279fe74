import type { Database } from 'better-sqlite3';
import type { StoreOperationResult, TaskState } from '../EngineStore.js';
import { actionRefusal } from '../sql/management/actionRefusal.js';
import { cancelNotStartedTask } from '../sql/management/cancelNotStartedTask.js';
import { insertActorStatusAudit } from '../sql/management/insertActorStatusAudit.js';
import { selectManagedTask } from '../sql/management/ManagedTaskRow.js';
import { requeueTaskNow } from '../sql/management/requeueTaskNow.js';
import { BULK_ACTION_STATUSES, type BulkBatchResult, type TaskManagementStore } from '../TaskManagementStore.js';

/** The SQLite implementation of the retry and bulk writes, on the engine's writer connection. */
export function createSqliteTaskManagementStore(db: Database): TaskManagementStore {
  return {
    async retryTask({ id, now, actor }): Promise<StoreOperationResult> {
      return db
        .transaction((): StoreOperationResult => {
          const row = selectManagedTask(db, id);
          if (!row) return { status: 'NotFound', message: `Task ${id} was not found.`, taskId: id };
          const refusal = actionRefusal('retry', row);
          if (refusal !== undefined) return { status: 'Conflict', message: refusal, taskId: row.id };
          if (!requeueTaskNow(db, row.id, BULK_ACTION_STATUSES.retry, now)) {
            return { status: 'Conflict', message: 'The task changed status meanwhile; it is no longer finished.', taskId: row.id };
          }
          insertActorStatusAudit(db, row.id, row.audit_level, 'Queued', now, actor);
          return { status: 'Succeeded', message: `The task is back in the queue (retried by ${actor}).`, taskId: row.id };
        })
        .immediate();
    },

    async applyBulkBatch({ action, ids, now, actor, statuses }): Promise<BulkBatchResult> {
      return db
        .transaction((): BulkBatchResult => {
          const result: BulkBatchResult = { succeeded: 0, skipped: 0, cancelled: [] };
          const allowed = statuses && statuses.length > 0 ? BULK_ACTION_STATUSES[action].filter((s) => statuses.includes(s)) : BULK_ACTION_STATUSES[action];
          for (const id of ids) {
            const row = selectManagedTask(db, id);
            if (!row || !allowed.includes(row.status) || actionRefusal(action, row) !== undefined) {
              result.skipped++;
              continue;
            }
            const changed = action === 'cancel' ? cancelNotStartedTask(db, row.id) : requeueTaskNow(db, row.id, allowed, now);
            if (!changed) {
              result.skipped++;
              continue;
            }
            insertActorStatusAudit(db, row.id, row.audit_level, action === 'cancel' ? 'Cancelled' : 'Queued', now, actor);
            result.succeeded++;
            if (action === 'cancel') {
              const task: TaskState = {
                id: row.id,
                type: row.type,
                handler: row.handler,
                request: row.request,
                queue: row.queue,
                status: 'Cancelled',
                audit_level: row.audit_level,
                parent_task_id: row.parent_task_id,
                is_schedule: 0,
              };
              result.cancelled.push(task);
            }
          }
          return result;
        })
        .immediate();
    },
  };
}
