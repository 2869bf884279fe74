import type { OccurrenceListItem, OccurrencePage, TaskStatus } from '../../../contracts/index.js';
import type { PageRequest } from '../../MonitoringStore.js';
import { auditedRunDurationMs, startedAtMs, toOccurrenceBlock, type OccurrenceColumns } from '../../queries/taskRow.js';
import { toIso } from '../../time.js';
import type { PgQuery } from './PgQuery.js';

interface Row extends OccurrenceColumns {
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

/** Statuses from which an occurrence can still lead to an execution. */
const NON_TERMINAL = `('Pending', 'Queued', 'WaitingQueue', 'InProgress', 'ServiceStopped')`;
const COLUMNS = `id, parent_task_id, status, created_at, last_execution_at, started_at, execution_time_ms, audit_level,
  schedule_version, nominal_slot_at, run_number, time_zone_id, misfire_kind, missed_from, missed_through, missed_count,
  missed_count_is_exact`;

/** Occurrences of a durable schedule, newest slot first (unique index on parent and slot). */
export function pgPageOccurrences(q: PgQuery) {
  return async function pageOccurrences(
    scheduleId: string,
    nonTerminalOnly: boolean,
    req: PageRequest,
  ): Promise<Omit<OccurrencePage, 'skip' | 'take'>> {
    const filter = nonTerminalOnly ? `AND status IN ${NON_TERMINAL}` : '';
    const [count, rows] = await Promise.all([
      q<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks WHERE parent_task_id = $1 ${filter}`, [scheduleId]),
      req.take === 0
        ? Promise.resolve([])
        : q<Row>(`SELECT ${COLUMNS} FROM tasks WHERE parent_task_id = $1 ${filter} ORDER BY nominal_slot_at DESC LIMIT $2 OFFSET $3`, [
            scheduleId,
            req.take,
            req.skip,
          ]),
    ]);
    const occurrences = rows.map(
      (r): OccurrenceListItem => ({
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
      }),
    );
    return { occurrences, totalCount: count[0]!.n };
  };
}
