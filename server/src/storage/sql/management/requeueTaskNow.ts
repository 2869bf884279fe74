import type { Database } from 'better-sqlite3';
import type { TaskStatus } from '../../../contracts/index.js';
import { preparedStatement } from '../schedules/preparedStatement.js';

/**
 * A finished row back to Queued, due now, attempts and throttle reset, same id; history and
 * the last error text are kept. Only from one of `from` (false: the row has moved on).
 */
export function requeueTaskNow(db: Database, id: string, from: readonly TaskStatus[], nowMs: number): boolean {
  const inList = from.map((s) => `'${s}'`).join(', ');
  return (
    preparedStatement(
      db,
      `UPDATE tasks SET status = 'Queued', scheduled_at = ?, attempt = 0, throttled_until = NULL
        WHERE id = ? AND status IN (${inList})`,
    ).run(nowMs, id).changes === 1
  );
}
