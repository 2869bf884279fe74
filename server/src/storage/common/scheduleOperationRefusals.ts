import type { OperationResult } from '../../contracts/index.js';
import { isScheduleRow, type ScheduleRow } from '../EngineStore.js';

/**
 * The answers a schedule operation gives when it does not apply, written once so that SQLite
 * and PostgreSQL refuse alike (the management API shows them to a person).
 */

type OperatedRow = Pick<ScheduleRow, 'id' | 'task_key' | 'is_recurring' | 'occurrence_mode' | 'parent_task_id'> & { status: string };

const conflict = (taskId: string, message: string): OperationResult => ({ status: 'Conflict', message, taskId });

export const noSuchTask = (): OperationResult => ({ status: 'NotFound', message: 'No task with this id.' });

/** Why `row` cannot be operated on as a schedule (not a durable schedule row, or no task key); undefined: it can. */
export function scheduleRowRefusal(row: OperatedRow): OperationResult | undefined {
  if (!isScheduleRow(row)) return conflict(row.id, 'The task is not a durable schedule.');
  if (row.task_key === null) return conflict(row.id, 'The schedule has no task key and cannot be operated on.');
  return undefined;
}

/** Why a schedule cannot be cancelled in its status (already cancelled, series completed); undefined: it can. */
export function cancelStatusRefusal(row: Pick<OperatedRow, 'id' | 'status'>): OperationResult | undefined {
  if (row.status === 'Cancelled') return conflict(row.id, 'The schedule is already cancelled.');
  if (row.status === 'Completed') return conflict(row.id, 'The schedule has completed its series; there is nothing to cancel.');
  return undefined;
}

/** Why a schedule cannot be resumed in its status (only an active, Pending, schedule can); undefined: it can. */
export function resumeStatusRefusal(row: Pick<OperatedRow, 'id' | 'status'>): OperationResult | undefined {
  if (row.status !== 'Pending') return conflict(row.id, `The schedule is ${row.status}; only an active schedule can be resumed.`);
  return undefined;
}

/**
 * The first check of a requeue, on the row alone: a Failed or Cancelled occurrence passes, with
 * its status and the id of its schedule, whose status the caller reads next (requeueScheduleRefusal).
 */
export function requeueRowCheck(
  row: Omit<OperatedRow, 'task_key'>,
): { refused: OperationResult } | { refused?: undefined; status: 'Failed' | 'Cancelled'; scheduleId: string } {
  if (isScheduleRow(row)) return { refused: conflict(row.id, 'A schedule row cannot be requeued; requeue one of its occurrences.') };
  if (row.parent_task_id === null) return { refused: conflict(row.id, 'The task is not an occurrence of a durable schedule.') };
  if (row.status !== 'Failed' && row.status !== 'Cancelled') {
    return { refused: conflict(row.id, `The occurrence is ${row.status}; only a Failed or Cancelled occurrence can be requeued.`) };
  }
  return { status: row.status, scheduleId: row.parent_task_id };
}

/** Why an occurrence cannot be requeued because of its schedule (gone or cancelled); undefined: it can. */
export function requeueScheduleRefusal(taskId: string, schedule: { status: string } | undefined): OperationResult | undefined {
  if (!schedule || schedule.status === 'Cancelled') return conflict(taskId, 'The schedule of this occurrence was cancelled; its occurrences cannot be requeued.');
  return undefined;
}

export const requeued = (taskId: string): OperationResult => ({ status: 'Succeeded', message: 'The occurrence is back in the queue.', taskId });
