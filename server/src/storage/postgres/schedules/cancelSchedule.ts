import type { PoolClient } from 'pg';
import type { AuditLevel, TaskStatus } from '../../../contracts/index.js';
import { insertStatusAudits } from '../tasks/insertStatusAudits.js';
import { taskStatusUpdate } from '../tasks/taskStatusUpdate.js';
import { cancelOpenOccurrences, type OccurrencesCancelled } from './cancelOpenOccurrences.js';
import { spillPendingOccurrences } from './spillPendingOccurrences.js';

/**
 * Cancel, written once for the engine's schedule store and the storage operation of a process
 * without an engine: the schedule row (locked by the caller, its refusals checked) → Cancelled,
 * its halt and next slot dropped, with its audit row; its not-started occurrences → Cancelled;
 * running occurrences finish. Its compact occurrences (migration 19) become task rows first and are
 * cancelled with the others. Answers how many occurrences were cancelled, and how many another
 * transaction held (the caller cancels those after its commit: cancelSkippedOccurrences).
 */
export async function cancelSchedule(c: PoolClient, schedule: { id: string; status: string; audit_level: string }, now: number): Promise<OccurrencesCancelled> {
  await spillPendingOccurrences(c, { scheduleId: schedule.id });
  await c.query(
    taskStatusUpdate({ writer: 'cancelSchedule', to: 'Cancelled', from: [schedule.status as TaskStatus], set: 'scheduled_at = NULL, halt = NULL', where: 't.id = $1' }),
    [schedule.id],
  );
  await insertStatusAudits(c, [{ taskId: schedule.id, level: schedule.audit_level as AuditLevel, at: now, status: 'Cancelled' }]);
  return cancelOpenOccurrences(c, schedule.id, now);
}

/** The message of a schedule cancelled with `cancelled` of its occurrences. */
export const scheduleCancelledMessage = (cancelled: number) => `Schedule cancelled; ${cancelled} pending occurrence(s) cancelled, running ones finish.`;
