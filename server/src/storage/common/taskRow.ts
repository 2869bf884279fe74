import type { MisfireKind, MisfirePolicy, OccurrenceBlock, TaskStatus, TaskSummary } from '../../contracts/index.js';
import { toIso } from './time.js';

/** Columns of the tasks table that a task summary needs. */
export const SUMMARY_COLUMNS = `id, type, status, queue, created_at, last_execution_at, started_at, scheduled_at,
  is_recurring, execution_time_ms, audit_level, parent_task_id, occurrence_mode, misfire_policy, time_zone_id,
  schedule_version, nominal_slot_at, misfire_kind,
  CASE WHEN audit_level = 'Full' AND started_at IS NOT NULL AND last_execution_at >= started_at
       THEN last_execution_at - started_at END AS run_duration_ms,
  substr(exception, 1, 400) AS exception_head, reserved_by, reserved_at`;
/** The same on a database opened read-only from before the reservation columns. */
export const SUMMARY_COLUMNS_WITHOUT_RESERVATIONS = SUMMARY_COLUMNS.replace(/reserved_by, reserved_at$/, 'NULL AS reserved_by, NULL AS reserved_at');

export interface TaskSummaryRow {
  id: string;
  type: string;
  status: TaskStatus;
  queue: string;
  created_at: number;
  last_execution_at: number | null;
  started_at: number | null;
  scheduled_at: number | null;
  is_recurring: number;
  execution_time_ms: number | null;
  audit_level: string;
  parent_task_id: string | null;
  occurrence_mode: string | null;
  misfire_policy: string | null;
  time_zone_id: string | null;
  schedule_version: number | null;
  nominal_slot_at: number | null;
  misfire_kind: string | null;
  /** last_execution_at − started_at when the start was audited (audit level Full). */
  run_duration_ms?: number | null;
  /** The first 400 characters of the last error. */
  exception_head?: string | null;
  /** The engine instance that reserved the row, and when (a started row keeps reserved_at: its rate-window instant). */
  reserved_by?: string | null;
  reserved_at?: number | null;
}

export interface OccurrenceColumns {
  nominal_slot_at: number | null;
  run_number: number | null;
  time_zone_id: string | null;
  misfire_kind: string | null;
  missed_from: number | null;
  missed_through: number | null;
  missed_count: number | null;
  missed_count_is_exact: number | null;
}

/** Lists show the last dotted segment of the type name; the detail shows the full name. */
export function shortTypeName(type: string): string {
  const i = type.lastIndexOf('.');
  return i >= 0 && i < type.length - 1 ? type.slice(i + 1) : type;
}

/** The first non-empty line of an error text, at most 200 characters. */
export function errorSummary(text: string | null | undefined): string | undefined {
  if (!text) return undefined;
  const line = text.split(/\r?\n/).find((l) => l.trim() !== '')?.trim();
  if (!line) return undefined;
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** Wall-clock length of the last run from its audited start and end (audit level Full), for rows read without the SQL column. */
export function auditedRunDurationMs(row: { audit_level: string; started_at: number | null; last_execution_at: number | null }): number | undefined {
  return row.audit_level === 'Full' && row.started_at !== null && row.last_execution_at !== null && row.last_execution_at >= row.started_at
    ? row.last_execution_at - row.started_at
    : undefined;
}

const WAITING_FOR_DELIVERY = new Set<TaskStatus>(['Pending', 'Queued', 'WaitingQueue']);

/**
 * When the row's last run began (startedAtUtc). At audit level Full the start is the row's own InProgress transition
 * (`started_at` is written in the same transaction as that audit row). Below Full it is
 * derived only for a finished run whose duration was measured (> 0). Absent for a row
 * waiting for its (next) delivery, one that never ran, and one never measured.
 */
export function startedAtMs(row: Pick<TaskSummaryRow, 'status' | 'audit_level' | 'started_at' | 'last_execution_at' | 'execution_time_ms'>): number | undefined {
  if (WAITING_FOR_DELIVERY.has(row.status)) return undefined;
  if (row.audit_level === 'Full') return row.started_at ?? undefined;
  if (row.status === 'InProgress') return undefined;
  if (row.last_execution_at !== null && row.execution_time_ms !== null && row.execution_time_ms > 0) {
    return Math.round(row.last_execution_at - row.execution_time_ms);
  }
  return undefined;
}

/** True when the row belongs to a durable schedule (the schedule row or one of its occurrences). */
function belongsToSchedule(row: Pick<TaskSummaryRow, 'occurrence_mode' | 'parent_task_id'>): boolean {
  return row.occurrence_mode === 'Durable' || row.parent_task_id !== null;
}

export function toTaskSummary(row: TaskSummaryRow, fullType = false): TaskSummary {
  const scheduled = belongsToSchedule(row);
  const isOccurrence = row.parent_task_id !== null;
  return {
    id: row.id,
    type: fullType ? row.type : shortTypeName(row.type),
    status: row.status,
    queueName: row.queue,
    createdAtUtc: toIso(row.created_at),
    lastExecutionUtc: toIso(row.last_execution_at),
    startedAtUtc: toIso(startedAtMs(row)),
    scheduledExecutionUtc: toIso(row.scheduled_at),
    isRecurring: row.is_recurring === 1,
    executionTimeMs: row.execution_time_ms ?? undefined,
    // The schedule fields are all absent together on a row that belongs to no durable schedule.
    parentTaskId: scheduled ? (row.parent_task_id ?? undefined) : undefined,
    occurrenceMode: scheduled ? 'Durable' : undefined,
    misfirePolicy: scheduled && !isOccurrence ? ((row.misfire_policy ?? undefined) as MisfirePolicy | undefined) : undefined,
    timeZoneId: scheduled ? (row.time_zone_id ?? undefined) : undefined,
    scheduleVersion: scheduled ? (row.schedule_version ?? undefined) : undefined,
    nominalSlotUtc: isOccurrence ? toIso(row.nominal_slot_at) : undefined,
    misfireKind: isOccurrence ? ((row.misfire_kind ?? undefined) as MisfireKind | undefined) : undefined,
    runDurationMs: row.run_duration_ms ?? undefined,
    errorSummary: errorSummary(row.exception_head),
    // A reservation means something only while the row waits for its handler.
    ...(row.status === 'Queued' && row.reserved_by != null ? { reservedBy: row.reserved_by, reservedAtUtc: toIso(row.reserved_at ?? null) } : {}),
  };
}

export function toOccurrenceBlock(row: OccurrenceColumns): OccurrenceBlock | undefined {
  if (row.nominal_slot_at === null) return undefined;
  return {
    slotUtc: toIso(row.nominal_slot_at),
    runNumber: row.run_number ?? 0,
    timeZoneId: row.time_zone_id ?? undefined,
    misfireKind: (row.misfire_kind ?? 'OnTime') as MisfireKind,
    missedFromUtc: toIso(row.missed_from),
    missedThroughUtc: toIso(row.missed_through),
    missedCount: row.missed_count ?? undefined,
    missedCountIsExact: row.missed_count_is_exact === null ? undefined : row.missed_count_is_exact === 1,
  };
}
