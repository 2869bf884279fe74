import type { PoolClient } from 'pg';
import type { TaskStatus } from '../../../contracts/task.js';
import { cancelStatusRefusal, scheduleRowRefusal } from '../../common/scheduleOperationRefusals.js';
import { auditsTransition, type OperationRow, type StorageOperationResult } from './ScheduleOperationResult.js';
import { taskStatusUpdate } from '../tasks/taskStatusUpdate.js';

/**
 * Cancel: the schedule becomes Cancelled (terminal, its halt dropped), its Pending, Queued and
 * WaitingQueue occurrences Cancelled; running occurrences finish. The schedule row is locked.
 */
export async function pgCancelSchedule(c: PoolClient, row: OperationRow, nowMs: number): Promise<StorageOperationResult> {
  const refusal = scheduleRowRefusal(row) ?? cancelStatusRefusal(row);
  if (refusal) return refusal;
  await c.query(taskStatusUpdate({ writer: 'cancelSchedule', to: 'Cancelled', from: [row.status as TaskStatus], set: 'scheduled_at = NULL, halt = NULL', where: 'id = $1' }), [row.id]);
  if (auditsTransition(row.audit_level)) {
    await c.query(`INSERT INTO status_audit (task_id, updated_at, new_status) VALUES ($1, $2, 'Cancelled')`, [row.id, nowMs]);
  }
  const { rows } = await c.query<{ id: string; audit_level: string }>(
    taskStatusUpdate({
      writer: 'cancelSchedule', to: 'Cancelled', from: ['Pending', 'Queued', 'WaitingQueue'], set: 'throttled_until = NULL, reserved_by = NULL, reserved_at = NULL',
      where: `id IN (SELECT id FROM tasks WHERE parent_task_id = $1 AND status IN ('Pending', 'Queued', 'WaitingQueue') FOR UPDATE SKIP LOCKED)`,
      returning: 't.id, t.audit_level',
    }),
    [row.id],
  );
  const audited = rows.filter((r) => auditsTransition(r.audit_level)).map((r) => r.id);
  if (audited.length > 0) {
    await c.query(
      `INSERT INTO status_audit (task_id, updated_at, new_status) SELECT id, $2, 'Cancelled' FROM unnest($1::text[]) AS id`,
      [audited, nowMs],
    );
  }
  return {
    status: 'Succeeded',
    message: `Schedule cancelled; ${rows.length} pending occurrence(s) cancelled, running ones finish.`,
    taskId: row.id,
  };
}
