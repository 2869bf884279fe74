import type { TaskDetail } from '../../../contracts/index.js';
import { DETAIL_COLUMNS, DETAIL_PAGE, toTaskDetail, type TaskDetailRow } from '../../queries/taskDetailRow.js';
import type { pgPageExecutionLogs } from './pageExecutionLogs.js';
import type { pgPageRunsAudits } from './pageRunsAudits.js';
import type { pgPageStatusAudits } from './pageStatusAudits.js';
import type { PgQuery } from './PgQuery.js';

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
      q<TaskDetailRow>(`SELECT ${DETAIL_COLUMNS} FROM tasks WHERE id = $1`, [id]),
      pages.statusAudits(id, DETAIL_PAGE),
      pages.runsAudits(id, DETAIL_PAGE),
      pages.executionLogs(id, DETAIL_PAGE),
    ]);
    return row ? toTaskDetail(row, status, runs, logs) : undefined;
  };
}
