import { IS_SCHEDULE_ROW, SCHEDULE_COLUMNS, type Queryable, type ScheduleRow } from './ScheduleRow.js';

/** The newest durable schedule row carrying `key`; `forUpdate` locks it for the caller's transaction. */
export async function selectScheduleByKey(q: Queryable, key: string, forUpdate = false): Promise<ScheduleRow | undefined> {
  const { rows } = await q.query<ScheduleRow>(
    `SELECT ${SCHEDULE_COLUMNS} FROM tasks WHERE task_key = $1 AND ${IS_SCHEDULE_ROW} ORDER BY created_at DESC, seq DESC LIMIT 1${forUpdate ? ' FOR UPDATE' : ''}`,
    [key],
  );
  return rows[0];
}
