import type { Database } from 'better-sqlite3';
import { preparedStatement } from './preparedStatement.js';
import { priorStatusCondition } from '../../common/statusTransitions.js';

/**
 * Management requeue: a Failed or Cancelled row back to Queued, same id, due now, attempts reset. Its history
 * (status audits, exception text of the last failure) is kept. Returns false when the row was
 * not terminal anymore.
 */
export function requeueTerminalTask(db: Database, id: string, nowMs: number): boolean {
  return (
    preparedStatement(
      db,
      `UPDATE tasks SET status = 'Queued', scheduled_at = ?, attempt = 0, abandoned_count = 0, throttled_until = NULL, reserved_by = NULL, reserved_at = NULL
        WHERE id = ? AND ${priorStatusCondition('requeueTerminalTask', 'status', 'Queued', ['Failed', 'Cancelled'])}`,
    ).run(nowMs, id).changes === 1
  );
}
