import type { Database } from 'better-sqlite3';
import { preparedStatement } from './preparedStatement.js';
import { SCHEDULE_COLUMNS, type ScheduleRow } from './ScheduleRow.js';

export function selectTaskById(db: Database, id: string): ScheduleRow | undefined {
  return preparedStatement(db, `SELECT ${SCHEDULE_COLUMNS} FROM tasks WHERE id = ?`).get(id) as ScheduleRow | undefined;
}
