import type { Database } from 'better-sqlite3';
import { preparedStatement } from './preparedStatement.js';

/** runNumber of the schedule's newest occurrence (0 when none); uses the (parent, slot) index. */
export function selectLastRunNumber(db: Database, scheduleId: string): number {
  const n = preparedStatement(
    db,
    `SELECT run_number FROM tasks WHERE parent_task_id = ? ORDER BY nominal_slot_at DESC LIMIT 1`,
  )
    .pluck()
    .get(scheduleId) as number | undefined;
  return n ?? 0;
}
