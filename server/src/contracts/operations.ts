import type { DashboardRange, Guid, IsoTimestamp } from './task.js';
import type { TaskQuery } from './api.js';

/** Where `searchTerm` looks: names only (type, handler, task key; the default) or names and the request JSON. */
export type SearchScope = 'Names' | 'NamesAndArguments';

/** Actions of POST /management/bulk/{action}. */
export type BulkAction = 'requeue' | 'retry' | 'cancel';
export const BULK_ACTIONS: readonly BulkAction[] = ['requeue', 'retry', 'cancel'];

/** The filter of a bulk action: the task-list filter without paging and sorting. */
export type BulkFilter = Omit<TaskQuery, 'sortBy' | 'sortDescending' | 'page' | 'pageSize'>;

/** Body of POST /management/bulk/{action}. */
export interface BulkRequest {
  filter: BulkFilter;
  /** The count the user confirmed; a difference of more than 5 % answers 409 with the current count. */
  expectedCount: number;
}

/** The hub client method that receives BulkOperation progress. */
export const BULK_PROGRESS_TARGET = 'BulkProgress';

export type BulkState = 'Running' | 'Completed' | 'Failed';

/** A bulk operation's progress: the answer of POST /management/bulk/{action}, GET /management/bulk/{operationId} and the BulkProgress hub event. */
export interface BulkOperation {
  operationId: Guid;
  action: BulkAction;
  state: BulkState;
  /** Rows the filter matched when the operation started. */
  count: number;
  /** Rows looked at so far (succeeded + skipped). */
  processed: number;
  /** Rows the action was applied to. */
  succeeded: number;
  /** Rows that no longer qualified when their turn came (changed status, cancelled schedule, ...). */
  skipped: number;
  startedAtUtc: IsoTimestamp;
  finishedAtUtc?: IsoTimestamp;
  /** Who started it. */
  requestedBy?: string;
  /** Set when state is Failed. */
  error?: string;
}

/** 409 answer of a bulk action whose expectedCount is off by more than 5 %: nothing was done. */
export interface BulkCountMismatch {
  status: 'Conflict';
  message: string;
  expectedCount: number;
  count: number;
}

/** One group of GET /statistics/failure-groups: failed runs of one task type with one exception fingerprint. */
export interface FailureGroup {
  taskType: string;
  /** First line of the exception with numbers, ids and quoted values masked. */
  fingerprint: string;
  count: number;
  firstSeenUtc: IsoTimestamp;
  lastSeenUtc: IsoTimestamp;
  /** A task of the group (the most recent one seen). */
  sampleTaskId: Guid;
}

export interface FailureGroups {
  range: DashboardRange;
  groups: FailureGroup[];
}
