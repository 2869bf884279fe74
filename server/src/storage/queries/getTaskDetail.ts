import type { Database } from 'better-sqlite3';
import type { TaskDetail } from '../../contracts/index.js';
import type { createPageExecutionLogs } from './pageExecutionLogs.js';
import type { createPageRunsAudits } from './pageRunsAudits.js';
import type { createPageStatusAudits } from './pageStatusAudits.js';
import type { SchemaFeatures } from './schemaFeatures.js';
import { DETAIL_COLUMNS, DETAIL_COLUMNS_WITHOUT_TRACE, DETAIL_PAGE, toTaskDetail, type TaskDetailRow } from './taskDetailRow.js';

export function createGetTaskDetail(
  db: Database,
  features: Pick<SchemaFeatures, 'traceContext'>,
  pages: {
    statusAudits: ReturnType<typeof createPageStatusAudits>;
    runsAudits: ReturnType<typeof createPageRunsAudits>;
    executionLogs: ReturnType<typeof createPageExecutionLogs>;
  },
) {
  const byId = db.prepare(`SELECT ${features.traceContext ? DETAIL_COLUMNS : DETAIL_COLUMNS_WITHOUT_TRACE} FROM tasks WHERE id = ?`);
  return function getTaskDetail(id: string): TaskDetail | undefined {
    const row = byId.get(id) as TaskDetailRow | undefined;
    if (!row) return undefined;
    return toTaskDetail(row, pages.statusAudits(id, DETAIL_PAGE), pages.runsAudits(id, DETAIL_PAGE), pages.executionLogs(id, DETAIL_PAGE));
  };
}
