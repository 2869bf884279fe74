import type { OperationResult } from '../contracts/index.js';
import type { TaskStatus } from '../contracts/index.js';
import type { TaskState } from './EngineStore.js';

/**
 * The write operations of retry and of the bulk actions: a companion of `EngineStore` with
 * the same rules (Promise-returning; each call one transaction; a row whose status is no
 * longer the one a change expects is left alone and reported; every status change writes its
 * status-audit row, here with who made it, when the task's audit level records it).
 */
export interface TaskManagementStore {
  /** A Failed, Cancelled or ServiceStopped one-shot task → Queued, same id and history. */
  retryTask(input: { id: string; now: number; actor: string }): Promise<OperationResult>;
  /** One batch of a bulk action, in one transaction. */
  applyBulkBatch(input: BulkBatchInput): Promise<BulkBatchResult>;
}

export type BulkBatchAction = 'requeue' | 'retry' | 'cancel';

export interface BulkBatchInput {
  action: BulkBatchAction;
  ids: readonly string[];
  now: number;
  actor: string;
  /** When set, a row must still be in one of these statuses (the filter the user confirmed). */
  statuses?: readonly TaskStatus[];
}

export interface BulkBatchResult {
  /** Rows changed. */
  succeeded: number;
  /** Rows that no longer qualified (or no longer exist). */
  skipped: number;
  /** Rows cancelled (cancel action): for the Cancelled events. */
  cancelled: TaskState[];
}

/** Which statuses each action applies to, and which rows it refuses. */
export const BULK_ACTION_STATUSES: Record<BulkBatchAction, readonly TaskStatus[]> = {
  requeue: ['Failed', 'Cancelled'],
  retry: ['Failed', 'Cancelled', 'ServiceStopped'],
  cancel: ['Pending', 'Queued', 'WaitingQueue'],
};
