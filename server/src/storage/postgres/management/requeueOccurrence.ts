import type { PoolClient } from 'pg';
import type { StoreOperationResult } from '../../EngineStore.js';
import { OPERATION_COLUMNS, auditsTransition, isScheduleRow, type OperationRow } from './ScheduleOperationResult.js';
import { taskStatusUpdate } from '../engine/taskStatusUpdate.js';

/**
 * A Failed or Cancelled occurrence back to Queued: same id and history (one 'Queued' audit row),
 * attempts reset, due now. The row and its schedule are locked for the check and the write.
 */
export async function pgRequeueOccurrence(c: PoolClient, occurrenceId: string, nowMs: number): Promise<StoreOperationResult> {
  const { rows } = await c.query<OperationRow>(`SELECT ${OPERATION_COLUMNS} FROM tasks WHERE id = $1 FOR UPDATE`, [occurrenceId]);
  const row = rows[0];
  if (!row) return { status: 'NotFound', message: 'No task with this id.' };
  const taskId = row.id;
  if (isScheduleRow(row)) return { status: 'Conflict', message: 'A schedule row cannot be requeued; requeue one of its occurrences.', taskId };
  if (row.parent_task_id === null) return { status: 'Conflict', message: 'The task is not an occurrence of a durable schedule.', taskId };
  if (row.status !== 'Failed' && row.status !== 'Cancelled') {
    return { status: 'Conflict', message: `The occurrence is ${row.status}; only a Failed or Cancelled occurrence can be requeued.`, taskId };
  }
  const parent = (await c.query<{ status: string }>(`SELECT status FROM tasks WHERE id = $1 FOR SHARE`, [row.parent_task_id])).rows[0];
  if (!parent || parent.status === 'Cancelled') {
    return { status: 'Conflict', message: 'The schedule of this occurrence was cancelled; its occurrences cannot be requeued.', taskId };
  }
  await c.query(
    taskStatusUpdate({
      writer: 'requeueOccurrence', to: 'Queued', from: [row.status],
      set: 'scheduled_at = $1, attempt = 0, abandoned_count = 0, throttled_until = NULL, reserved_by = NULL, reserved_at = NULL, instance_id = NULL', where: 'id = $2',
    }),
    [nowMs, taskId],
  );
  if (auditsTransition(row.audit_level)) {
    await c.query(`INSERT INTO status_audit (task_id, updated_at, new_status) VALUES ($1, $2, 'Queued')`, [taskId, nowMs]);
  }
  return { status: 'Succeeded', message: 'The occurrence is back in the queue.', taskId };
}
