import type { Database } from 'better-sqlite3';
import type { AuditLevel, TaskDetail } from '../../contracts/index.js';
import { toIso } from '../time.js';
import { parseHalt } from './parseHalt.js';
import { parseScheduleDefinition } from './parseScheduleDefinition.js';
import type { createPageExecutionLogs } from './pageExecutionLogs.js';
import type { createPageRunsAudits } from './pageRunsAudits.js';
import type { createPageStatusAudits } from './pageStatusAudits.js';
import { SUMMARY_COLUMNS, toOccurrenceBlock, toTaskSummary, type OccurrenceColumns, type TaskSummaryRow } from './taskRow.js';

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

/** §2.2 / D16: the first page (100) of every history block, read through the same paged queries. */
export const DETAIL_PAGE = { skip: 0, take: 100 };

export function createGetTaskDetail(
  db: Database,
  pages: {
    statusAudits: ReturnType<typeof createPageStatusAudits>;
    runsAudits: ReturnType<typeof createPageRunsAudits>;
    executionLogs: ReturnType<typeof createPageExecutionLogs>;
  },
) {
  const byId = db.prepare(
    `SELECT ${SUMMARY_COLUMNS}, handler, request, task_key, exception, throttled_until, halt, schedule_definition, run_number,
            missed_from, missed_through, missed_count, missed_count_is_exact
       FROM tasks WHERE id = ?`,
  );
  return function getTaskDetail(id: string): TaskDetail | undefined {
    const row = byId.get(id) as DetailRow | undefined;
    if (!row) return undefined;
    const status = pages.statusAudits(id, DETAIL_PAGE);
    const runs = pages.runsAudits(id, DETAIL_PAGE);
    const logs = pages.executionLogs(id, DETAIL_PAGE);
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
