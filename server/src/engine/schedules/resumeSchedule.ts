import type { OperationResult } from '../../contracts/index.js';
import type { ScheduleRow } from '../../storage/EngineStore.js';
import { resumeStatusRefusal, scheduleRowRefusal } from '../../storage/common/scheduleOperationRefusals.js';
import type { EngineInternals } from '../EngineInternals.js';
import { createSlotSource } from './createSlotSource.js';
import type { OccurrenceMaterializer } from './OccurrenceMaterializer.js';
import { ScheduleOperationError } from './ScheduleManager.js';
import { parseStoredDefinition } from './StoredScheduleDefinition.js';

/**
 * Resume: releases a halt, keeps cursor and backlog, and re-plans the backlog at once
 * against the current definition (it may halt again). A schedule without a halt answers
 * Succeeded with releasedHalt=false. Unevaluable definition → Unavailable, nothing written.
 */
export async function resumeScheduleRow(
  internals: EngineInternals,
  materializer: OccurrenceMaterializer,
  row: ScheduleRow,
): Promise<OperationResult> {
  const refused = scheduleRowRefusal(row) ?? resumeStatusRefusal(row);
  if (refused) return refused;
  try {
    createSlotSource(parseStoredDefinition(row.schedule_definition!));
  } catch (err) {
    if (err instanceof ScheduleOperationError) return { status: 'Unavailable', message: err.message, taskId: row.id };
    throw err;
  }
  const releasedHalt = await internals.store.schedules.releaseHalt(row.id);
  let haltedAgain = false;
  try {
    haltedAgain = (await materializer.materializeSchedule(row.id, internals.now())).halted;
  } catch (err) {
    if (!(err instanceof ScheduleOperationError)) throw err;
  }
  const after = (await internals.store.schedules.findById(row.id))!;
  const result: OperationResult = {
    status: 'Succeeded',
    message: !releasedHalt
      ? 'The schedule was not halted; nothing to release.'
      : haltedAgain
        ? 'Halt released; the re-planned backlog is still over the overflow cap, so the schedule halted again.'
        : 'Halt released; the backlog was re-planned.',
    taskId: row.id,
    releasedHalt,
  };
  if (after.scheduled_at !== null) result.nextRunUtc = new Date(after.scheduled_at).toISOString();
  return result;
}
