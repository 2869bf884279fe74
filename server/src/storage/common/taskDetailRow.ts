import type { AuditLevel, ExecutionLogPage, RunsAuditPage, StatusAuditPage, TaskDetail } from '../../contracts/index.js';
import type { SchemaFeatures } from './SchemaFeatures.js';
import { toIso } from './time.js';
import { parseHalt } from './parseHalt.js';
import { parseScheduleDefinition } from './parseScheduleDefinition.js';
import { SUMMARY_COLUMNS, SUMMARY_COLUMNS_WITHOUT_RESERVATIONS, toOccurrenceBlock, toTaskSummary, type OccurrenceColumns, type TaskSummaryRow } from './taskRow.js';

/** The columns of one task row that its detail needs, the same for every backend. */
export interface TaskDetailRow extends TaskSummaryRow, OccurrenceColumns {
  handler: string;
  request: string;
  task_key: string | null;
  exception: string | null;
  throttled_until: number | null;
  halt: string | null;
  schedule_definition: string | null;
  run_number: number | null;
  traceparent: string | null;
}

/**
 * The select list of a task detail row (placeholders differ per backend, so the WHERE clause is
 * the caller's); a database opened read-only from before the trace-context or reservation
 * columns reads NULL in their place.
 */
export function detailColumns(features: Pick<SchemaFeatures, 'traceContext' | 'reservations'>): string {
  const summary = features.reservations ? SUMMARY_COLUMNS : SUMMARY_COLUMNS_WITHOUT_RESERVATIONS;
  const trace = features.traceContext ? 'traceparent' : 'NULL AS traceparent';
  return `${summary}, handler, request, task_key, exception, throttled_until, halt, schedule_definition, run_number,
            missed_from, missed_through, missed_count, missed_count_is_exact, ${trace}`;
}

/** The detail carries the first page (100 entries) of every history block, read through the paged queries. */
export const DETAIL_PAGE = { skip: 0, take: 100 };

/** The trace id of a stored W3C traceparent (`00-<trace id>-<span id>-<flags>`). */
function traceIdOf(traceparent: string | null): string | undefined {
  return traceparent === null ? undefined : /^00-([0-9a-f]{32})-/.exec(traceparent)?.[1];
}

/** A task row and the first page of each of its histories, in wire shape. */
export function toTaskDetail(
  row: TaskDetailRow,
  status: Pick<StatusAuditPage, 'audits' | 'totalCount'>,
  runs: Pick<RunsAuditPage, 'audits' | 'totalCount'>,
  logs: Pick<ExecutionLogPage, 'logs' | 'totalCount'>,
): TaskDetail {
  const isSchedule = row.occurrence_mode === 'Durable' && row.parent_task_id === null;
  return {
    ...toTaskSummary(row, true),
    handler: row.handler,
    request: row.request,
    taskKey: row.task_key ?? undefined,
    statusAudits: status.audits,
    runsAudits: runs.audits,
    statusAuditsTotalCount: status.totalCount,
    runsAuditsTotalCount: runs.totalCount,
    occurrence: row.parent_task_id !== null ? toOccurrenceBlock(row) : undefined,
    halt: isSchedule ? parseHalt(row.halt, row.schedule_version) : undefined,
    executionLogs: logs.logs,
    executionLogsTotalCount: logs.totalCount,
    exception: row.exception ?? undefined,
    throttledUntilUtc: toIso(row.throttled_until),
    auditLevel: row.audit_level as AuditLevel,
    scheduleDefinition: isSchedule ? parseScheduleDefinition(row.schedule_definition, row.misfire_policy, row.time_zone_id) : undefined,
    traceId: traceIdOf(row.traceparent),
  };
}
