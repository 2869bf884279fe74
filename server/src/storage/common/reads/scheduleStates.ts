import type { ScheduleStates } from '../../MonitoringStore.js';
import { queryOne, type ReadDb } from './ReadDb.js';

/**
 * Durable schedules by state, each count over its own partial index (O(schedules)): active ones
 * materialize occurrences; halted ones stopped over their catch-up cap and wait for a resume.
 */
export function createScheduleStates(db: ReadDb) {
  const sql = `
    SELECT CAST((SELECT COUNT(*) FROM tasks
                  WHERE occurrence_mode = 'Durable' AND parent_task_id IS NULL AND is_recurring = 1
                    AND status = 'Pending' AND halt IS NULL) AS INTEGER) AS active,
           CAST((SELECT COUNT(*) FROM tasks
                  WHERE halt IS NOT NULL AND status NOT IN ('Cancelled', 'Completed')) AS INTEGER) AS halted`;
  return function scheduleStates(): Promise<ScheduleStates> {
    return queryOne<ScheduleStates>(db, sql);
  };
}
