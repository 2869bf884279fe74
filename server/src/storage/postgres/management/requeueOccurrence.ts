import type { OperationResult } from '../../../contracts/index.js';
import type { PoolClient } from 'pg';

import { noSuchTask, requeueRowCheck, requeueScheduleRefusal, requeued } from '../../common/scheduleOperationRefusals.js';
import { OPERATION_COLUMNS, auditsTransition, type OperationRow } from './OperationRow.js';
import { spillPendingOccurrences } from '../schedules/spillPendingOccurrences.js';
import { taskStatusUpdate } from '../tasks/taskStatusUpdate.js';

/**
 * A Failed or Cancelled occurrence back to Queued: same id and history (one 'Queued' audit row),
 * attempts reset, due now. The row and its schedule are locked for the check and the write.
 * A compact occurrence is Pending: it becomes its task row first and is refused as any Pending occurrence is.
 */
export async function pgRequeueOccurrence(c: PoolClient, occurrenceId: string, nowMs: number): Promise<OperationResult> {
  await spillPendingOccurrences(c, { ids: [occurrenceId] });
  const { rows } = await c.query<OperationRow>(`SELECT ${OPERATION_COLUMNS} FROM tasks WHERE id = $1 FOR UPDATE`, [occurrenceId]);
  const row = rows[0];
  if (!row) return noSuchTask();
  const taskId = row.id;
  const check = requeueRowCheck(row);
  if (check.refused) return check.refused;
  const parent = (await c.query<{ status: string }>(`SELECT status FROM tasks WHERE id = $1 FOR SHARE`, [check.scheduleId])).rows[0];
  const refusal = requeueScheduleRefusal(taskId, parent);
  if (refusal) return refusal;
  await c.query(
    taskStatusUpdate({
      writer: 'requeueOccurrence', to: 'Queued', from: [check.status],
      set: 'scheduled_at = $1, attempt = 0, abandoned_count = 0, throttled_until = NULL, reserved_by = NULL, reserved_at = NULL, instance_id = NULL', where: 'id = $2',
    }),
    [nowMs, taskId],
  );
  if (auditsTransition(row.audit_level)) {
    await c.query(`INSERT INTO status_audit (task_id, updated_at, new_status) VALUES ($1, $2, 'Queued')`, [taskId, nowMs]);
  }
  return requeued(taskId);
}
