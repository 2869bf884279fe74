/**
 * What the monitoring needs from an engine, named here so that the monitoring, the hub and the
 * storage backends that lend a local engine's parts to the monitoring share one vocabulary
 * without importing each other.
 */
import type { SvcEvent } from './events.js';
import type { BulkAction, BulkOperation } from './operations.js';
import type { ManagementStatus, TaskStatus } from './task.js';

/**
 * A run the engine gave up when it stopped (the grace period over, or waiting for a retry): its
 * row becomes ServiceStopped. The hub's event set has no kind for it; the metrics count it.
 */
export interface StoppedRunNotice {
  taskId: string;
  taskType: string;
  queueName: string;
  /** When the run was given up (engine clock, ms since epoch). */
  at: number;
}

/** How one handler attempt ended: a `result` of `svc_task_attempts_total`. */
export type AttemptResult = 'succeeded' | 'failed' | 'timed_out' | 'cancelled' | 'stopped';

/** One handler attempt that ended in this engine (a retried failure included). */
export interface AttemptNotice {
  taskId: string;
  taskType: string;
  queueName: string;
  /** 1-based, within the run. */
  attempt: number;
  result: AttemptResult;
  /** The handler's time in this attempt, seconds. */
  seconds: number;
}

/**
 * A task this engine brought to a terminal state (Completed, Failed, Cancelled), once written;
 * recurring rows' runs are not task ends.
 */
export interface TaskEndNotice {
  taskId: string;
  taskType: string;
  queueName: string;
  /** From the task's dispatch (its row's creation) to the written end, seconds. */
  seconds: number;
}

/** The answer of a management operation on a schedule, an occurrence or a task. */
export interface OperationResult {
  status: ManagementStatus;
  message: string;
  /** The schedule row's id (or the occurrence's, for requeue); absent on NotFound by key. */
  taskId?: string;
  nextRunUtc?: string;
  releasedHalt?: boolean;
}

/** A bulk action the user confirmed. */
export interface BulkStart {
  action: BulkAction;
  /** The rows the filter matched when the user confirmed, in the order to process them. */
  ids: readonly string[];
  /** The filter's statuses: a row must still be in one of them. */
  statuses?: readonly TaskStatus[];
  /** Who asked (recorded in each row's status-audit entry). */
  actor: string;
}

/** What the monitoring needs from an engine (full registration): schedule operations and events. */
export interface MonitoringEngine {
  schedules: {
    requeue(occurrenceId: string): Promise<OperationResult>;
    resume(key: string): Promise<OperationResult>;
    cancel(key: string): Promise<OperationResult>;
  };
  on(event: 'event', listener: (e: SvcEvent) => void): unknown;
  /** Whether the engine can write (GET /health); absent: reported as ok. `clock`: see HealthReport. */
  health?(): { status: 'ok' | 'degraded' | 'failed'; unwrittenChanges?: number; clock?: { offsetMs: number; ok: boolean } };
  /** Durations of the engine's store commits (metrics); absent on an engine without them. */
  observeCommits?(listener: (seconds: number) => void): () => void;
  /** Runs given up at a stop (metrics); absent on an engine without them. */
  observeStoppedRuns?(listener: (run: StoppedRunNotice) => void): () => void;
  /** Every handler attempt's end (metrics); absent on an engine without them. */
  observeAttempts?(listener: (attempt: AttemptNotice) => void): () => void;
  /** Tasks brought to a terminal state by this engine (metrics); absent on an engine without them. */
  observeTaskEnds?(listener: (end: TaskEndNotice) => void): () => void;
  off(event: 'event', listener: (e: SvcEvent) => void): unknown;
  /** Retry and bulk actions; absent on an engine without them (the endpoints answer NotSupported). */
  tasks?: {
    retry(id: string, actor: string): Promise<OperationResult>;
    startBulk(input: BulkStart): BulkOperation;
    bulkStatus(operationId: string): BulkOperation | undefined;
    onBulkProgress(listener: (progress: BulkOperation) => void): void;
    offBulkProgress(listener: (progress: BulkOperation) => void): void;
  };
}
