import type { OperationResult } from '../../contracts/index.js';
import { noSuchTask } from '../../storage/common/scheduleOperationRefusals.js';
import type { EngineInternals } from '../EngineInternals.js';

/**
 * Requeue: a Failed or Cancelled occurrence → Queued, same id and history (one 'Queued' audit
 * row), no new runNumber (it spends no run of the series).
 */
export async function requeueOccurrence(internals: EngineInternals, occurrenceId: string): Promise<OperationResult> {
  if (typeof occurrenceId !== 'string') return noSuchTask();
  const result = await internals.store.schedules.requeueOccurrence(occurrenceId, internals.now());
  if (result.status === 'Succeeded') internals.wake();
  return result;
}
