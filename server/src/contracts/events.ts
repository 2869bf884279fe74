import type { ExecutionLogEntry, Guid, IsoTimestamp, SkipReason } from './task.js';

/** The kinds of live events: five task kinds, plus OccurrenceSkipped when a schedule drops slots. */
export type SvcEventKind = 'Started' | 'Completed' | 'Failed' | 'Cancelled' | 'Timeout' | 'OccurrenceSkipped';
export type SvcEventSeverity = 'Information' | 'Warning' | 'Error';

/**
 * The one argument of every `SvcEvent` hub invocation, and the payload of the
 * engine's `event` emitter. Null fields are omitted.
 */
export interface SvcEvent {
  kind: SvcEventKind;
  /** The task; for OccurrenceSkipped the schedule row's id. */
  taskId: Guid;
  eventDateUtc: IsoTimestamp;
  severity: SvcEventSeverity;
  /** Full dotted type name. */
  taskType: string;
  taskHandlerType?: string;
  /** The serialized request (JSON text). */
  taskParameters?: string;
  message: string;
  exception?: string;
  queueName?: string;
  parentTaskId?: Guid;
  /** Only with `includeExecutionLogs`. */
  executionLogs?: ExecutionLogEntry[];
  /** Run-scoped facts (not in the spec's list, documented in docs/decisions/). */
  executionTimeMs?: number;
  attempt?: number;
  /** Started only: how long the task waited between becoming due and its handler starting (ms). */
  waitTimeMs?: number;
  /** Failed only, present (true) when recovery failed the task because its runs kept being abandoned (see maxAbandoned). */
  abandoned?: boolean;
  // OccurrenceSkipped only:
  reason?: SkipReason;
  skippedCount?: number;
  firstSlotUtc?: IsoTimestamp;
  lastSlotUtc?: IsoTimestamp;
  scheduleVersion?: number;
}

export const SEVERITY_BY_KIND: Readonly<Record<SvcEventKind, SvcEventSeverity>> = {
  Started: 'Information',
  Completed: 'Information',
  Failed: 'Error',
  Cancelled: 'Warning',
  Timeout: 'Warning',
  OccurrenceSkipped: 'Warning',
};
