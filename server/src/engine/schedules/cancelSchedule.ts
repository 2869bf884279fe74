import type { OperationResult } from '../../contracts/index.js';
import type { ScheduleRow } from '../../storage/EngineStore.js';
import { scheduleRowRefusal } from '../../storage/common/scheduleOperationRefusals.js';
import type { EngineInternals } from '../EngineInternals.js';

/**
 * Cancel: the schedule becomes Cancelled (terminal, its halt dropped), its Pending/Queued/
 * WaitingQueue occurrences Cancelled; running occurrences finish.
 */
export async function cancelScheduleRow(internals: EngineInternals, row: ScheduleRow): Promise<OperationResult> {
  const refused = scheduleRowRefusal(row);
  if (refused) return refused;
  return internals.store.schedules.cancel(row.id, internals.now());
}
