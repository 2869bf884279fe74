import type { Database } from 'better-sqlite3';
import type { TaskStatus } from '../../../contracts/index.js';
import { preparedStatement } from './preparedStatement.js';
import { priorStatusCondition } from '../../common/statusTransitions.js';

/**
 * Advances the materializer cursor and the displayed next slot; `status` Completed finalizes an
 * exhausted bounded series (duration 0, so the row has no
 * startedAtUtc).
 */
export function updateScheduleProgress(db: Database, id: string, cursorAt: number, nextSlotAt: number | null, status: TaskStatus): void {
  preparedStatement(
    db,
    `UPDATE tasks SET cursor_at = ?, scheduled_at = ?, status = ?,
        execution_time_ms = CASE WHEN ? = 'Completed' THEN 0 ELSE execution_time_ms END
      WHERE id = ? AND ${priorStatusCondition('updateScheduleProgress', 'status', status, ['Pending'])}`,
  ).run(cursorAt, nextSlotAt, status, status, id);
}
