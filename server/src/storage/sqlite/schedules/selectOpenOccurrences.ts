import type { OpenOccurrence } from '../../EngineStore.js';
import type { Database } from 'better-sqlite3';
import type { AuditLevel } from '../../../contracts/index.js';
import { preparedStatement } from './preparedStatement.js';

export type { OpenOccurrence };

/**
 * Occurrences of a schedule that have not started: Pending, Queued or WaitingQueue. Task rows
 * only: its callers (a definition change, a cancellation) first turn the schedule's compact
 * occurrences (migration 15) into task rows.
 */
export function selectOpenOccurrences(db: Database, scheduleId: string): OpenOccurrence[] {
  return preparedStatement(
    db,
    `SELECT id, nominal_slot_at, schedule_version, audit_level FROM tasks
      WHERE parent_task_id = ? AND status IN ('Pending', 'Queued', 'WaitingQueue')`,
  ).all(scheduleId) as OpenOccurrence[];
}
