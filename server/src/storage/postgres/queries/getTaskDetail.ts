import type { AuditLevel, TaskDetail } from '../../../contracts/index.js';
import { DETAIL_PAGE } from '../../queries/getTaskDetail.js';
import { parseHalt } from '../../queries/parseHalt.js';
import { parseScheduleDefinition } from '../../queries/parseScheduleDefinition.js';
import { SUMMARY_COLUMNS, toOccurrenceBlock, toTaskSummary, type OccurrenceColumns, type TaskSummaryRow } from '../../queries/taskRow.js';
import { toIso } from '../../time.js';
import type { pgPageExecutionLogs } from './pageExecutionLogs.js';
import type { pgPageRunsAudits } from './pageRunsAudits.js';
import type { pgPageStatusAudits } from './pageStatusAudits.js';
import type { PgQuery } from './PgQuery.js';

interface DetailRow extends TaskSummaryRow, OccurrenceColumns {
  handler: string;
  request: string;
  task_key: string | null;
  exception: string | null;
  throttled_until: number | null;
  halt: string | null;
  schedule_definition: string | null;
  run_number: number | null;
}

/** The task detail with the first page (100) of every history block. */
export function pgGetTaskDetail(
  q: PgQuery,
  pages: {
    statusAudits: ReturnType<typeof pgPageStatusAudits>;
    runsAudits: ReturnType<typeof pgPageRunsAudits>;
    executionLogs: ReturnType<typeof pgPageExecutionLogs>;
  },
) {
  return async function getTaskDetail(id: string): Promise<TaskDetail | undefined> {
    const [[row], status, runs, logs] = await Promise.all([
      q<DetailRow>(
        `SELECT ${SUMMARY_COLUMNS}, handler, request, task_key, exception, throttled_until, halt, schedule_definition, run_number,
                missed_from, missed_through, missed_count, missed_count_is_exact
           FROM tasks WHERE id = $1`,
        [id],
      ),
      pages.statusAudits(id, DETAIL_PAGE),
      pages.runsAudits(id, DETAIL_PAGE),
      pages.executionLogs(id, DETAIL_PAGE),
    ]);
    if (!row) return undefined;
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
    };
  };
}
