/** Durable schedules that materialize occurrences (the materializer's own partial index). */
export const ACTIVE_SCHEDULES_SQL = `SELECT COUNT(*) FROM tasks
  WHERE occurrence_mode = 'Durable' AND parent_task_id IS NULL AND is_recurring = 1 AND status = 'Pending' AND halt IS NULL`;
/** Schedules whose catch-up halted over its cap and waits for a resume (the halted rows' partial index). */
export const HALTED_SCHEDULES_SQL = `SELECT COUNT(*) FROM tasks WHERE halt IS NOT NULL AND status NOT IN ('Cancelled', 'Completed')`;
