import type { Database } from 'better-sqlite3';
import type { TaskStatus } from '../../../contracts/index.js';
import { preparedStatement } from './preparedStatement.js';
import { priorStatusCondition } from '../../common/statusTransitions.js';

/** Status of a schedule row; the displayed next slot goes with it (null once terminal). */
export function setScheduleStatus(db: Database, id: string, status: TaskStatus, nextSlotAt: number | null): void {
  preparedStatement(db, `UPDATE tasks SET status = ?, scheduled_at = ? WHERE id = ? AND ${priorStatusCondition('setScheduleStatus', 'status', status)}`).run(status, nextSlotAt, id);
}
