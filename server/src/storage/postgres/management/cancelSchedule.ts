import type { OperationResult } from '../../../contracts/index.js';
import type { PoolClient } from 'pg';
import { cancelStatusRefusal, scheduleRowRefusal } from '../../common/scheduleOperationRefusals.js';
import type { OperationRow } from './OperationRow.js';
import { cancelSchedule, scheduleCancelledMessage } from '../schedules/cancelSchedule.js';
import type { OccurrencesCancelled } from '../schedules/cancelOpenOccurrences.js';
import { cancelSkippedOccurrences } from '../schedules/cancelSkippedOccurrences.js';
import type { PostgresStorage } from '../PostgresStorage.js';

/**
 * Cancel, for the storage operation (a process without a local engine) and the engine's schedule
 * store alike: the schedule becomes Cancelled (terminal, its halt dropped), its Pending, Queued and
 * WaitingQueue occurrences Cancelled; running occurrences finish. The schedule row is locked by the
 * caller; the writes are schedules/cancelSchedule.ts's.
 */
export async function pgCancelSchedule(c: PoolClient, row: OperationRow, nowMs: number): Promise<{ result: OperationResult } & OccurrencesCancelled> {
  const refusal = scheduleRowRefusal(row) ?? cancelStatusRefusal(row);
  if (refusal) return { result: refusal, cancelled: 0, skipped: 0 };
  const out = await cancelSchedule(c, row, nowMs);
  return { result: { status: 'Succeeded', message: scheduleCancelledMessage(out.cancelled), taskId: row.id }, ...out };
}

/**
 * The storage operation's cancel, whole: the transaction above, then the occurrences it skipped
 * because an engine's commit held them (cancelSkippedOccurrences), counted in its message.
 */
export async function pgCancelScheduleAndSkipped(
  storage: PostgresStorage,
  inTransaction: (run: (c: PoolClient, row: OperationRow) => Promise<OperationResult>) => Promise<OperationResult>,
  nowMs: number,
): Promise<OperationResult> {
  let counts: OccurrencesCancelled & { id: string } = { id: '', cancelled: 0, skipped: 0 };
  const result = await inTransaction(async (c, row) => {
    const out = await pgCancelSchedule(c, row, nowMs);
    counts = { id: row.id, cancelled: out.cancelled, skipped: out.skipped };
    return out.result;
  });
  if (result.status !== 'Succeeded' || counts.skipped === 0) return result;
  const late = await cancelSkippedOccurrences(storage, counts.id, nowMs);
  return { ...result, message: scheduleCancelledMessage(counts.cancelled + late) };
}
