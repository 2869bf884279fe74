import type { OperationResult } from '../../../contracts/index.js';
import type { PoolClient } from 'pg';
import { toIso } from '../../common/time.js';
import { resumeStatusRefusal, scheduleRowRefusal } from '../../common/scheduleOperationRefusals.js';
import type { OperationRow } from './OperationRow.js';
import { releaseHalt } from '../schedules/releaseHalt.js';

/**
 * Resume from a process without a local engine: releases the halt (cursor and backlog kept); the
 * backlog is re-planned by the materializer of whichever engine instance claims the schedule next
 * (woken through the wake channel). A schedule without a halt answers Succeeded, releasedHalt=false.
 */
export async function pgReleaseHalt(c: PoolClient, row: OperationRow): Promise<OperationResult> {
  const refusal = scheduleRowRefusal(row) ?? resumeStatusRefusal(row);
  if (refusal) return refusal;
  const releasedHalt = await releaseHalt(c, row.id);
  const result: OperationResult = {
    status: 'Succeeded',
    message: releasedHalt
      ? 'Halt released; the backlog is re-planned by the next engine instance that materializes the schedule.'
      : 'The schedule was not halted; nothing to release.',
    taskId: row.id,
    releasedHalt,
  };
  if (row.scheduled_at !== null) result.nextRunUtc = toIso(row.scheduled_at);
  return result;
}
