import type { Database } from 'better-sqlite3';
import { preparedStatement } from './preparedStatement.js';
import { IS_SCHEDULE_ROW, SCHEDULE_COLUMNS, type ScheduleRow } from './ScheduleRow.js';

/** The newest durable schedule row carrying `key`. */
export function selectScheduleByKey(db: Database, key: string): ScheduleRow | undefined {
  return preparedStatement(
    db,
    `SELECT ${SCHEDULE_COLUMNS} FROM tasks WHERE task_key = ? AND ${IS_SCHEDULE_ROW} ORDER BY created_at DESC, rowid DESC LIMIT 1`,
  ).get(key) as ScheduleRow | undefined;
}
