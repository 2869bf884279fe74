import type { Database } from 'better-sqlite3';
import { preparedStatement } from './preparedStatement.js';

/**
 * runNumber of the schedule's newest occurrence (0 when none), task row or compact occurrence
 * (migration 15, where the store has it); each read by its (schedule, slot) index.
 */
export function selectLastRunNumber(db: Database, scheduleId: string, compact: boolean): number {
  const taskRows = `SELECT run_number AS n FROM tasks WHERE parent_task_id = ? ORDER BY nominal_slot_at DESC LIMIT 1`;
  const compactRows = `SELECT run_number AS n FROM pending_occurrences WHERE schedule_ref = (SELECT ref FROM occurrence_schedules WHERE schedule_id = ?)
    ORDER BY nominal_slot_at DESC LIMIT 1`;
  const n = compact
    ? preparedStatement(db, `SELECT MAX(n) FROM (SELECT * FROM (${taskRows}) UNION ALL SELECT * FROM (${compactRows}))`).pluck().get(scheduleId, scheduleId)
    : preparedStatement(db, taskRows).pluck().get(scheduleId);
  return (n as number | null | undefined) ?? 0;
}
