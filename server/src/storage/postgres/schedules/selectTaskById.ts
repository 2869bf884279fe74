import { SCHEDULE_COLUMNS, type Queryable, type ScheduleRow } from './ScheduleRow.js';

/**
 * A task row by id, with the schedule columns; `lock` locks it for the caller's transaction
 * (`skipLocked`: a row another transaction holds reads as absent).
 */
export async function selectTaskById(q: Queryable, id: string, lock?: 'forUpdate' | 'skipLocked'): Promise<ScheduleRow | undefined> {
  const suffix = lock === 'forUpdate' ? ' FOR UPDATE' : lock === 'skipLocked' ? ' FOR UPDATE SKIP LOCKED' : '';
  return (await q.query<ScheduleRow>(`SELECT ${SCHEDULE_COLUMNS} FROM tasks WHERE id = $1${suffix}`, [id])).rows[0];
}
