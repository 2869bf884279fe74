import type { OccurrenceListItem, TaskStatus } from '../../contracts/index.js';
import { toIso } from './time.js';
import { auditedRunDurationMs, startedAtMs, toOccurrenceBlock, type OccurrenceColumns } from './taskRow.js';

/** The columns of an occurrence list item, the same for every backend. */
export interface OccurrenceRow extends OccurrenceColumns {
  id: string;
  parent_task_id: string;
  status: TaskStatus;
  created_at: number;
  last_execution_at: number | null;
  started_at: number | null;
  execution_time_ms: number | null;
  audit_level: string;
  schedule_version: number | null;
}

/** Statuses from which an occurrence can still lead to an execution (the `nonTerminalOnly` filter). */
export const NON_TERMINAL_OCCURRENCE = `('Pending', 'Queued', 'WaitingQueue', 'InProgress', 'ServiceStopped')`;

export const OCCURRENCE_COLUMNS = `id, parent_task_id, status, created_at, last_execution_at, started_at, execution_time_ms, audit_level,
  schedule_version, nominal_slot_at, run_number, time_zone_id, misfire_kind, missed_from, missed_through, missed_count,
  missed_count_is_exact`;

/** One occurrence row in wire shape. */
export function toOccurrenceListItem(r: OccurrenceRow): OccurrenceListItem {
  return {
    id: r.id,
    parentTaskId: r.parent_task_id,
    status: r.status,
    occurrence: toOccurrenceBlock(r) ?? { slotUtc: toIso(r.created_at), runNumber: r.run_number ?? 0, misfireKind: 'OnTime' },
    createdAtUtc: toIso(r.created_at),
    lastExecutionUtc: toIso(r.last_execution_at),
    startedAtUtc: toIso(startedAtMs(r)),
    executionTimeMs: r.execution_time_ms ?? undefined,
    scheduleVersion: r.schedule_version ?? undefined,
    runDurationMs: auditedRunDurationMs(r),
  };
}
