import type { OperationResult } from '../../../contracts/index.js';
import type { PoolClient } from 'pg';
import type { TaskState } from '../../EngineStore.js';

import { actionRefusal } from '../../common/actionRefusal.js';
import type { ManagedTaskRow } from '../../common/ManagedTaskRow.js';
import { BULK_ACTION_STATUSES, type BulkBatchResult, type TaskManagementStore } from '../../TaskManagementStore.js';
import type { PostgresStorage } from '../PostgresStorage.js';
import { retryingConflicts } from '../connection/storeClient.js';
import { spillPendingOccurrences } from '../schedules/spillPendingOccurrences.js';
import { insertStatusAudits } from '../tasks/insertStatusAudits.js';
import { taskStatusUpdate } from '../tasks/taskStatusUpdate.js';
import { takesRowsAway } from '../connection/rowsTakenAway.js';

const selectManaged = async (c: PoolClient, ids: readonly string[]) =>
  (
    await c.query<ManagedTaskRow>(
      `SELECT t.id, t.type, t.handler, t.request, t.queue, t.status, t.audit_level, t.parent_task_id, t.is_recurring,
              CASE WHEN t.occurrence_mode = 'Durable' AND t.parent_task_id IS NULL THEN 1 ELSE 0 END AS is_schedule,
              p.status AS parent_status
         FROM tasks t LEFT JOIN tasks p ON p.id = t.parent_task_id
        WHERE t.id = ANY($1::text[]) ORDER BY t.id FOR UPDATE OF t`,
      [ids],
    )
  ).rows;

/** A row put back in the queue: due at `now` (the parameter named), attempts and throttle reset, no instance. */
const REQUEUE_SET = (now: string) => `scheduled_at = ${now}, attempt = 0, abandoned_count = 0, throttled_until = NULL, reserved_by = NULL, reserved_at = NULL, instance_id = NULL`;

/**
 * Retry and bulk actions on PostgreSQL: each call one transaction, rows locked while checked and changed.
 * A compact Pending occurrence (migration 19) among the targets first becomes the task row it stands
 * for (`spillPendingOccurrences`, in the same transaction), so that every rule below acts on it
 * exactly as on that row: a retry refuses it as Pending, a bulk cancel cancels it.
 */
export function createPostgresTaskManagementStore(storage: PostgresStorage, onWritten: (c: PoolClient) => Promise<void>): TaskManagementStore {
  const transaction = <T>(work: (c: PoolClient) => Promise<T>): Promise<T> => retryingConflicts(() => storage.transaction(work));
  return {
    retryTask: ({ id, now, actor }) =>
      transaction(async (c): Promise<OperationResult> => {
        await spillPendingOccurrences(c, { ids: [id] });
        const row = (await selectManaged(c, [id]))[0];
        if (!row) return { status: 'NotFound', message: `Task ${id} was not found.`, taskId: id };
        const refusal = actionRefusal('retry', row);
        if (refusal !== undefined) return { status: 'Conflict', message: refusal, taskId: row.id };
        await c.query(taskStatusUpdate({ writer: 'retryTask', to: 'Queued', from: [row.status], set: REQUEUE_SET('$1'), where: 'id = $2' }), [now, row.id]);
        await insertStatusAudits(c, [{ taskId: row.id, level: row.audit_level, at: now, status: 'Queued', changedBy: actor }]);
        await onWritten(c);
        return { status: 'Succeeded', message: `The task is back in the queue (retried by ${actor}).`, taskId: row.id };
      }),

    applyBulkBatch: ({ action, ids, now, actor, statuses }) =>
      transaction(async (c): Promise<BulkBatchResult> => {
        const result: BulkBatchResult = { succeeded: 0, skipped: 0, cancelled: [] };
        const allowed = statuses && statuses.length > 0 ? BULK_ACTION_STATUSES[action].filter((s) => statuses.includes(s)) : BULK_ACTION_STATUSES[action];
        // Compact occurrences are Pending: only an action that applies to Pending rows needs them as task rows.
        if (allowed.includes('Pending')) await spillPendingOccurrences(c, { ids });
        const rows = await selectManaged(c, ids);
        const eligible = rows.filter((r) => allowed.includes(r.status) && actionRefusal(action, r) === undefined);
        result.skipped = ids.length - eligible.length;
        if (eligible.length === 0) return result;
        const target = action === 'cancel' ? 'Cancelled' : 'Queued';
        if (action === 'cancel') takesRowsAway(c);
        await c.query(
          taskStatusUpdate(action === 'cancel'
            ? { writer: 'applyBulkBatch', to: 'Cancelled', from: allowed, set: 'throttled_until = NULL, reserved_by = NULL, reserved_at = NULL', where: 'id = ANY($1::text[])' }
            : { writer: 'applyBulkBatch', to: 'Queued', from: allowed, set: REQUEUE_SET('$2'), where: 'id = ANY($1::text[])' }),
          action === 'cancel' ? [eligible.map((r) => r.id)] : [eligible.map((r) => r.id), now],
        );
        await insertStatusAudits(c, eligible.map((r) => ({ taskId: r.id, level: r.audit_level, at: now, status: target, changedBy: actor })));
        result.succeeded = eligible.length;
        if (action === 'cancel') {
          result.cancelled = eligible.map((r): TaskState => ({
            id: r.id, type: r.type, handler: r.handler, request: r.request, queue: r.queue, status: 'Cancelled',
            audit_level: r.audit_level, parent_task_id: r.parent_task_id, is_schedule: 0,
          }));
        } else await onWritten(c);
        return result;
      }),
  };
}
