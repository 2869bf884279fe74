import { IS_SCHEDULE_ROW, type Queryable } from './ScheduleRow.js';

/** Active, not halted durable schedules whose next slot (scheduled_at) is at or before `horizon`, soonest first. */
export async function selectDueScheduleIds(q: Queryable, horizon: number): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    `SELECT id FROM tasks WHERE ${IS_SCHEDULE_ROW} AND status = 'Pending' AND halt IS NULL AND scheduled_at <= $1 ORDER BY scheduled_at`,
    [horizon],
  );
  return rows.map((r) => r.id);
}
