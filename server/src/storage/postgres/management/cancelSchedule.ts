import type { OperationResult } from '../../../contracts/index.js';
import type { PoolClient } from 'pg';
import { cancelStatusRefusal, scheduleRowRefusal } from '../../common/scheduleOperationRefusals.js';
import type { OperationRow } from './OperationRow.js';
import { cancelSchedule, scheduleCancelledMessage } from '../schedules/cancelSchedule.js';

/**
 * Cancel from a process without a local engine: the schedule becomes Cancelled (terminal, its halt
 * dropped), its Pending, Queued and WaitingQueue occurrences Cancelled; running occurrences
 * finish. The schedule row is locked; the writes are schedules/cancelSchedule.ts's.
 */
export async function pgCancelSchedule(c: PoolClient, row: OperationRow, nowMs: number): Promise<OperationResult> {
  const refusal = scheduleRowRefusal(row) ?? cancelStatusRefusal(row);
  if (refusal) return refusal;
  const cancelled = await cancelSchedule(c, row, nowMs);
  return {
    status: 'Succeeded',
    message: scheduleCancelledMessage(cancelled),
    taskId: row.id,
  };
}
