import type { OpenOccurrence } from '../../../EngineStore.js';
import type { Database } from 'better-sqlite3';
import type { AuditLevel } from '../../../../contracts/index.js';
import { preparedStatement } from './preparedStatement.js';

export type { OpenOccurrence };

/** Occurrences of a schedule that have not started: Pending, Queued or WaitingQueue. */
export function selectOpenOccurrences(db: Database, scheduleId: string): OpenOccurrence[] {
  return preparedStatement(
    db,
    `SELECT id, nominal_slot_at, schedule_version, audit_level FROM tasks
      WHERE parent_task_id = ? AND status IN ('Pending', 'Queued', 'WaitingQueue')`,
  ).all(scheduleId) as OpenOccurrence[];
}
