import type { PoolClient } from 'pg';
import { auditsTransition, isScheduleRow, type OperationRow, type StorageOperationResult } from './ScheduleOperationResult.js';

/**
 * Cancel: the schedule becomes Cancelled (terminal, its halt dropped), its Pending, Queued and
 * WaitingQueue occurrences Cancelled; running occurrences finish. The schedule row is locked.
 */
export async function pgCancelSchedule(c: PoolClient, row: OperationRow, nowMs: number): Promise<StorageOperationResult> {
  if (!isScheduleRow(row)) return { status: 'Conflict', message: 'The task is not a durable schedule.', taskId: row.id };
  if (row.task_key === null) return { status: 'Conflict', message: 'The schedule has no task key and cannot be operated on.', taskId: row.id };
  if (row.status === 'Cancelled') return { status: 'Conflict', message: 'The schedule is already cancelled.', taskId: row.id };
  if (row.status === 'Completed') {
    return { status: 'Conflict', message: 'The schedule has completed its series; there is nothing to cancel.', taskId: row.id };
  }
  await c.query(`UPDATE tasks SET status = 'Cancelled', scheduled_at = NULL, halt = NULL WHERE id = $1`, [row.id]);
  if (auditsTransition(row.audit_level)) {
    await c.query(`INSERT INTO status_audit (task_id, updated_at, new_status) VALUES ($1, $2, 'Cancelled')`, [row.id, nowMs]);
  }
  const { rows } = await c.query<{ id: string; audit_level: string }>(
    `UPDATE tasks SET status = 'Cancelled', throttled_until = NULL, reserved_by = NULL, reserved_at = NULL
      WHERE id IN (SELECT id FROM tasks WHERE parent_task_id = $1 AND status IN ('Pending', 'Queued', 'WaitingQueue') FOR UPDATE SKIP LOCKED)
      RETURNING id, audit_level`,
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
