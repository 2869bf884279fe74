import type { Database } from 'better-sqlite3';
import { preparedStatement } from '../schedules/preparedStatement.js';

/** Pending, Queued or WaitingQueue → Cancelled (false: the row has moved on). */
export function cancelNotStartedTask(db: Database, id: string): boolean {
  return (
    preparedStatement(
      db,
      `UPDATE tasks SET status = 'Cancelled', throttled_until = NULL WHERE id = ? AND status IN ('Pending', 'Queued', 'WaitingQueue')`,
    ).run(id).changes === 1
  );
}
