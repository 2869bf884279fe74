/**
 * Migration 3: durable schedules. The materializer's due query reads only active, not halted
 * schedule rows by their next slot (scheduled_at); this partial index keeps that O(due).
 */
export const migration003Schedules = `
CREATE INDEX ix_tasks_schedule_due ON tasks (scheduled_at)
  WHERE occurrence_mode = 'Durable' AND parent_task_id IS NULL AND is_recurring = 1
    AND status = 'Pending' AND halt IS NULL;
`;
