import { cancelNotStartedTask } from '../../storage/sql/schedules/cancelNotStartedTask.js';
import { insertStatusAudit } from '../../storage/sql/schedules/insertStatusAudit.js';
import { isScheduleRow, type ScheduleRow } from '../../storage/sql/schedules/ScheduleRow.js';
import { selectOpenOccurrences } from '../../storage/sql/schedules/selectOpenOccurrences.js';
import { selectTaskById } from '../../storage/sql/schedules/selectTaskById.js';
import { setScheduleHalt } from '../../storage/sql/schedules/setScheduleHalt.js';
import { setScheduleStatus } from '../../storage/sql/schedules/setScheduleStatus.js';
import type { EngineInternals } from '../EngineInternals.js';
import type { ScheduleOperationResult } from './ScheduleManager.js';

/**
 * Cancel (spec §3, DESIGN §4.3): the schedule becomes Cancelled (terminal, its halt dropped),
 * its Pending/Queued/WaitingQueue occurrences Cancelled; running occurrences finish.
 */
export function cancelScheduleRow(internals: EngineInternals, row: ScheduleRow): ScheduleOperationResult {
  const { db } = internals;
  if (!isScheduleRow(row)) return { status: 'Conflict', message: 'The task is not a durable schedule.', taskId: row.id };
  if (row.task_key === null) {
    return { status: 'Conflict', message: 'The schedule has no task key and cannot be operated on.', taskId: row.id };
  }
  const now = internals.now();
  return db
    .transaction((): ScheduleOperationResult => {
      const fresh = selectTaskById(db, row.id)!;
      if (fresh.status === 'Cancelled') return { status: 'Conflict', message: 'The schedule is already cancelled.', taskId: row.id };
      if (fresh.status === 'Completed') {
        return { status: 'Conflict', message: 'The schedule has completed its series; there is nothing to cancel.', taskId: row.id };
      }
      setScheduleStatus(db, row.id, 'Cancelled', null);
      if (fresh.halt !== null) setScheduleHalt(db, row.id, null);
      insertStatusAudit(db, row.id, fresh.audit_level, 'Cancelled', now);
      let cancelled = 0;
      for (const o of selectOpenOccurrences(db, row.id)) {
        if (cancelNotStartedTask(db, o.id)) {
          insertStatusAudit(db, o.id, o.audit_level, 'Cancelled', now);
          cancelled++;
        }
      }
      return {
        status: 'Succeeded',
        message: `Schedule cancelled; ${cancelled} pending occurrence(s) cancelled, running ones finish.`,
        taskId: row.id,
      };
    })
    .immediate();
}
