import type { Database } from 'better-sqlite3';
import type { TaskStatus } from '../../../contracts/index.js';
import { preparedStatement } from '../schedules/preparedStatement.js';
import { priorStatusCondition } from '../../common/statusTransitions.js';

/**
 * Many rows in one statement (the ids as one JSON array), each only from one of `from`:
 * - to Queued: due now, attempts and throttle reset, same id; history and last error kept;
 * - to Cancelled: the throttle cleared.
 * Answers how many rows changed.
 */
export function setTasksStatus(db: Database, ids: readonly string[], from: readonly TaskStatus[], to: 'Queued' | 'Cancelled', nowMs: number): number {
  if (ids.length === 0 || from.length === 0) return 0;
  const where = `id IN (SELECT value FROM json_each(?)) AND ${priorStatusCondition('setTasksStatus', 'status', to, from)}`;
  return to === 'Queued'
    ? preparedStatement(db, `UPDATE tasks SET status = 'Queued', scheduled_at = ?, attempt = 0, abandoned_count = 0, throttled_until = NULL, reserved_by = NULL, reserved_at = NULL WHERE ${where}`).run(nowMs, JSON.stringify(ids)).changes
    : preparedStatement(db, `UPDATE tasks SET status = 'Cancelled', throttled_until = NULL, reserved_by = NULL, reserved_at = NULL WHERE ${where}`).run(JSON.stringify(ids)).changes;
}
