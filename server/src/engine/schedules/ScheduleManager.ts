import type { AuditLevel, ManagementStatus, MisfirePolicy, OperationResult } from '../../contracts/index.js';

/** Definition of a durable schedule: a keyed cron or interval series whose slots become occurrence rows. */
export interface DurableScheduleDefinition {
  /** Task key: required, identifies the schedule. */
  key: string;
  type: string;
  request?: unknown;
  /** Exactly one of cron or every. */
  cron?: string;
  /** Interval: milliseconds, or a duration string like '5m', '1h', '30s', '1h30m'. */
  every?: number | string;
  /** IANA time zone, default 'UTC'. */
  timeZone?: string;
  misfire?: { policy?: MisfirePolicy; windowMs?: number; overflowCap?: number };
  startAt?: Date | string;
  until?: Date | string;
  maxRuns?: number;
  queue?: string;
  auditLevel?: AuditLevel;
}

/** The schedule manager (ITaskScheduleManager): how application code changes schedules, outside the HTTP API. */
export interface ScheduleManager {
  /**
   * Creates or changes a durable schedule; returns the schedule row's id.
   * Bad input → TypeError naming the field. A cancelled key → ScheduleOperationError 'Conflict'.
   * A definition that cannot be evaluated (unknown zone, cron that never fires) →
   * ScheduleOperationError 'Unavailable'. Nothing is written in either case.
   */
  upsert(definition: DurableScheduleDefinition): Promise<string>;
  cancel(key: string): Promise<OperationResult>;
  resume(key: string): Promise<OperationResult>;
  /**
   * Puts a terminal (Failed or Cancelled) occurrence back in the queue, keeping its id and
   * history and spending no run of the series.
   */
  requeue(occurrenceId: string): Promise<OperationResult>;
  /**
   * Management entry points addressed by the schedule ROW id: resolve the row's task
   * key and call cancel/resume; NotFound for an unknown id, Conflict for a row that is not a
   * durable schedule or has no key.
   */
  cancelTask(scheduleId: string): Promise<OperationResult>;
  resumeTask(scheduleId: string): Promise<OperationResult>;
}

/** Thrown by `upsert` when the schedule cannot be written (nothing is written). */
export class ScheduleOperationError extends Error {
  constructor(
    readonly status: Extract<ManagementStatus, 'Conflict' | 'Unavailable'>,
    message: string,
  ) {
    super(message);
    this.name = 'ScheduleOperationError';
  }
}
