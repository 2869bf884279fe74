import type { Database } from 'better-sqlite3';
import { preparedStatement } from './preparedStatement.js';

/**
 * Active, not halted durable schedules whose next slot (scheduled_at) is at or before `horizon`.
 * Pinned to the partial index of migration 003: the planner would otherwise walk the due-work
 * index (ix_tasks_pending_due) through every Pending occurrence (over a million after a large
 * catch-up) on each tick.
 */
export function selectDueScheduleIds(db: Database, horizon: number): string[] {
  return preparedStatement(
    db,
    `SELECT id FROM tasks INDEXED BY ix_tasks_schedule_due
      WHERE occurrence_mode = 'Durable' AND parent_task_id IS NULL AND is_recurring = 1
        AND status = 'Pending' AND halt IS NULL AND scheduled_at <= ?
      ORDER BY scheduled_at`,
  )
    .pluck()
    .all(horizon) as string[];
}
