import type { PoolClient } from 'pg';

/**
 * runNumber of the schedule's newest occurrence (0 when none), task row or compact occurrence
 * (migration 19); each read by its (schedule, slot) index.
 */
export async function selectLastRunNumber(c: PoolClient, scheduleId: string): Promise<number> {
  const { rows } = await c.query<{ n: number | null }>(
    `SELECT GREATEST(
       (SELECT run_number FROM tasks WHERE parent_task_id = $1 ORDER BY nominal_slot_at DESC LIMIT 1),
       (SELECT p.run_number FROM pending_occurrences p WHERE p.schedule_ref = (SELECT ref FROM occurrence_schedules WHERE schedule_id = $1)
         ORDER BY p.nominal_slot_at DESC LIMIT 1)) AS n`,
    [scheduleId],
  );
  return rows[0]?.n ?? 0;
}
