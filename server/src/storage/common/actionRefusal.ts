import { BULK_ACTION_STATUSES, type BulkBatchAction } from '../TaskManagementStore.js';
import type { ManagedTaskRow } from './ManagedTaskRow.js';

/**
 * Why `action` does not apply to `row` (undefined: it applies).
 * - retry: a Failed, Cancelled or ServiceStopped one-shot row (not a schedule row, not an inline
 *   recurring row; an occurrence only while its schedule is not cancelled).
 * - requeue: a Failed or Cancelled occurrence of a schedule that is not cancelled.
 * - cancel: a Pending, Queued or WaitingQueue row that is not a durable schedule row.
 */
export function actionRefusal(action: BulkBatchAction, row: ManagedTaskRow): string | undefined {
  const statuses = BULK_ACTION_STATUSES[action];
  if (row.is_schedule === 1) {
    return action === 'cancel'
      ? 'A durable schedule is cancelled with POST /management/tasks/{id}/cancel.'
      : `A schedule row cannot be ${action === 'retry' ? 'retried' : 'requeued'}; ${action} one of its occurrences.`;
  }
  if (action === 'retry' && row.is_recurring === 1) return 'An inline recurring task cannot be retried: it runs again on its own schedule.';
  if (action === 'requeue' && row.parent_task_id === null) {
    return 'The task is not an occurrence of a durable schedule; use retry for a one-shot task.';
  }
  if (!statuses.includes(row.status)) {
    const verb = action === 'retry' ? 'retried' : action === 'requeue' ? 'requeued' : 'cancelled';
    return `The task is ${row.status}; only a ${statuses.join(', ').replace(/, ([^,]*)$/, ' or $1')} task can be ${verb}.`;
  }
  if (action !== 'cancel' && row.parent_task_id !== null && (row.parent_status === null || row.parent_status === 'Cancelled')) {
    return 'The schedule of this occurrence was cancelled; its occurrences cannot run again.';
  }
  return undefined;
}
