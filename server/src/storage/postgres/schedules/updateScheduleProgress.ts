import type { PoolClient } from 'pg';
import { taskStatusUpdate } from '../tasks/taskStatusUpdate.js';

/**
 * Advances the materializer cursor and the displayed next slot of a Pending schedule row;
 * `completed` finalizes an exhausted bounded series (status Completed, duration 0, so the row has
 * no startedAtUtc, no next slot).
 */
export async function updateScheduleProgress(c: PoolClient, id: string, cursorAt: number, nextSlotAt: number | null, completed: boolean): Promise<void> {
  await c.query(
    taskStatusUpdate({
      writer: 'materializeSchedule', to: { expr: '$3', statuses: ['Pending', 'Completed'] }, from: ['Pending'],
      set: `cursor_at = $1, scheduled_at = $2, execution_time_ms = CASE WHEN $3 = 'Completed' THEN 0 ELSE t.execution_time_ms END`, where: 't.id = $4',
    }),
    [cursorAt, completed ? null : nextSlotAt, completed ? 'Completed' : 'Pending', id],
  );
}
