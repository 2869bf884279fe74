import type { Database } from 'better-sqlite3';
import type { OccurrenceListItem, OccurrencePage, TaskStatus } from '../../contracts/index.js';
import type { PageRequest } from '../MonitoringStore.js';
import { toIso } from '../time.js';
import { auditedRunDurationMs, startedAtMs, toOccurrenceBlock, type OccurrenceColumns } from './taskRow.js';

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

/** Statuses from which an occurrence can still lead to an execution (§4.6 nonTerminalOnly). */
const NON_TERMINAL = `('Pending', 'Queued', 'WaitingQueue', 'InProgress', 'ServiceStopped')`;
const COLUMNS = `id, parent_task_id, status, created_at, last_execution_at, started_at, execution_time_ms, audit_level,
  schedule_version, nominal_slot_at, run_number, time_zone_id, misfire_kind, missed_from, missed_through, missed_count,
  missed_count_is_exact`;

/** §4.6: occurrences of a durable schedule, newest slot first (unique index on parent and slot). */
export function createPageOccurrences(db: Database) {
  const pageAll = db.prepare(
    `SELECT ${COLUMNS} FROM tasks WHERE parent_task_id = ? ORDER BY nominal_slot_at DESC LIMIT ? OFFSET ?`,
  );
  const pageOpen = db.prepare(
    `SELECT ${COLUMNS} FROM tasks WHERE parent_task_id = ? AND status IN ${NON_TERMINAL} ORDER BY nominal_slot_at DESC LIMIT ? OFFSET ?`,
  );
  const countAll = db.prepare(`SELECT COUNT(*) FROM tasks WHERE parent_task_id = ?`).pluck();
  const countOpen = db.prepare(`SELECT COUNT(*) FROM tasks WHERE parent_task_id = ? AND status IN ${NON_TERMINAL}`).pluck();

  return function pageOccurrences(
    scheduleId: string,
    nonTerminalOnly: boolean,
    req: PageRequest,
  ): Omit<OccurrencePage, 'skip' | 'take'> {
    const totalCount = (nonTerminalOnly ? countOpen : countAll).get(scheduleId) as number;
    const rows = req.take === 0 ? [] : ((nonTerminalOnly ? pageOpen : pageAll).all(scheduleId, req.take, req.skip) as Row[]);
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
    return { occurrences, totalCount };
  };
}
