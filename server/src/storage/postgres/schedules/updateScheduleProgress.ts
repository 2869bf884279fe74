import type { PoolClient } from 'pg';
import { taskStatusUpdate } from '../tasks/taskStatusUpdate.js';

/** One schedule's progress: its new cursor and next slot, or `completed` for an exhausted bounded series. */
export interface ScheduleProgress {
  id: string;
  cursorAt: number;
  nextSlotAt: number | null;
  completed: boolean;
}

/**
 * Advances the materializer cursors and the displayed next slots of Pending schedule rows, in one
 * statement (its UPDATE trigger counts them once); `completed` finalizes an exhausted bounded
 * series (status Completed, duration 0, so the row has no startedAtUtc, no next slot).
 */
export async function updateScheduleProgress(c: PoolClient, progress: readonly ScheduleProgress[]): Promise<void> {
  if (progress.length === 0) return;
  await c.query(
    taskStatusUpdate({
      writer: 'materializeSchedule', to: { expr: 'r.status', statuses: ['Pending', 'Completed'] }, from: ['Pending'],
      set: `cursor_at = r.cursor_at, scheduled_at = r.next_slot_at,
            execution_time_ms = CASE WHEN r.status = 'Completed' THEN 0 ELSE t.execution_time_ms END`,
      using: 'unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[]) AS r(id, cursor_at, next_slot_at, status)',
      where: 't.id = r.id',
    }),
    [
      progress.map((p) => p.id),
      progress.map((p) => p.cursorAt),
      progress.map((p) => (p.completed ? null : p.nextSlotAt)),
      progress.map((p) => (p.completed ? 'Completed' : 'Pending')),
    ],
  );
}
