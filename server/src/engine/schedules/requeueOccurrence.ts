import { insertStatusAudit } from '../../storage/sql/schedules/insertStatusAudit.js';
import { requeueTerminalTask } from '../../storage/sql/schedules/requeueTerminalTask.js';
import { isScheduleRow } from '../../storage/sql/schedules/ScheduleRow.js';
import { selectTaskById } from '../../storage/sql/schedules/selectTaskById.js';
import type { EngineInternals } from '../EngineInternals.js';
import type { ScheduleOperationResult } from './ScheduleManager.js';

/**
 * Requeue (spec §3, D4): a Failed or Cancelled occurrence → Queued, same id and history (one
 * 'Queued' audit row), no new runNumber (it spends no run of the series).
 */
export function requeueOccurrence(internals: EngineInternals, occurrenceId: string): ScheduleOperationResult {
  const { db } = internals;
  const now = internals.now();
  const result = db
    .transaction((): ScheduleOperationResult => {
      const row = selectTaskById(db, occurrenceId);
      if (!row) return { status: 'NotFound', message: 'No task with this id.' };
      const taskId = row.id;
      if (isScheduleRow(row)) return { status: 'Conflict', message: 'A schedule row cannot be requeued; requeue one of its occurrences.', taskId };
      if (row.parent_task_id === null) return { status: 'Conflict', message: 'The task is not an occurrence of a durable schedule.', taskId };
      if (row.status !== 'Failed' && row.status !== 'Cancelled') {
        return { status: 'Conflict', message: `The occurrence is ${row.status}; only a Failed or Cancelled occurrence can be requeued.`, taskId };
      }
      const parent = selectTaskById(db, row.parent_task_id);
      if (!parent || parent.status === 'Cancelled') {
        return { status: 'Conflict', message: 'The schedule of this occurrence was cancelled; its occurrences cannot be requeued.', taskId };
      }
      if (!requeueTerminalTask(db, taskId, now)) return { status: 'Conflict', message: 'The occurrence is no longer terminal.', taskId };
      insertStatusAudit(db, taskId, row.audit_level, 'Queued', now);
      return { status: 'Succeeded', message: 'The occurrence is back in the queue.', taskId };
    })
    .immediate();
  if (result.status === 'Succeeded') internals.wake();
  return result;
}
