import type { TaskDetail } from '../../../contracts/index.js';
import { detailColumns, DETAIL_PAGE, toTaskDetail, type TaskDetailRow } from '../taskDetailRow.js';
import type { createPageExecutionLogs } from './pageExecutionLogs.js';
import type { createPageRunsAudits } from './pageRunsAudits.js';
import type { createPageStatusAudits } from './pageStatusAudits.js';
import { PENDING_OCCURRENCE_TASKS, pendingOccurrenceReads } from './pendingOccurrenceReads.js';
import type { ReadDb } from './ReadDb.js';

/** The task detail with the first page (100) of every history block. */
export function createGetTaskDetail(
  db: ReadDb,
  pages: {
    statusAudits: ReturnType<typeof createPageStatusAudits>;
    runsAudits: ReturnType<typeof createPageRunsAudits>;
    executionLogs: ReturnType<typeof createPageExecutionLogs>;
  },
) {
  // A database opened read-only from before the trace-context or reservation columns answers without them.
  const byId = `SELECT ${detailColumns(db.features)} FROM tasks WHERE id = ?`;
  // No task row: the id may be a compact occurrence, shown as its task row (no runs, no logs; see pageStatusAudits).
  const compactById = pendingOccurrenceReads(db) && `SELECT ${detailColumns(db.features)} FROM ${PENDING_OCCURRENCE_TASKS} WHERE id = ?`;
  const rowOf = async (id: string) => {
    const rows = await db.query<TaskDetailRow>(byId, [id]);
    return rows.length > 0 || !compactById ? rows : db.query<TaskDetailRow>(compactById, [id]);
  };
  return async function getTaskDetail(id: string): Promise<TaskDetail | undefined> {
    const [[row], status, runs, logs] = await Promise.all([
      rowOf(id),
      pages.statusAudits(id, DETAIL_PAGE),
      pages.runsAudits(id, DETAIL_PAGE),
      pages.executionLogs(id, DETAIL_PAGE),
    ]);
    return row ? toTaskDetail(row, status, runs, logs) : undefined;
  };
}
