import type { ScheduleRow } from '../../storage/EngineStore.js';
import { isScheduleRow } from '../../storage/EngineStore.js';
import type { EngineInternals } from '../EngineInternals.js';
import type { ScheduleOperationResult } from './ScheduleManager.js';

/**
 * Cancel: the schedule becomes Cancelled (terminal, its halt dropped), its Pending/Queued/
 * WaitingQueue occurrences Cancelled; running occurrences finish.
 */
export async function cancelScheduleRow(internals: EngineInternals, row: ScheduleRow): Promise<ScheduleOperationResult> {
  if (!isScheduleRow(row)) return { status: 'Conflict', message: 'The task is not a durable schedule.', taskId: row.id };
  if (row.task_key === null) {
    return { status: 'Conflict', message: 'The schedule has no task key and cannot be operated on.', taskId: row.id };
  }
  return internals.store.schedules.cancel(row.id, internals.now());
}
