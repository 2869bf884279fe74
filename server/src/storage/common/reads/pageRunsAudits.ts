import type { RunsAuditEntry, RunsAuditPage } from '../../../contracts/index.js';
import type { PageRequest } from '../../MonitoringStore.js';
import { toIso } from '../time.js';
import { pagedRows } from './pagedRows.js';
import type { ReadDb } from './ReadDb.js';

interface Row {
  id: number;
  task_id: string;
  executed_at: number;
  execution_time_ms: number;
  status: 'Completed' | 'Failed';
  exception: string | null;
}

export const toRunsAudit = (r: Row): RunsAuditEntry => ({
  id: r.id,
  queuedTaskId: r.task_id,
  executedAt: toIso(r.executed_at),
  executionTimeMs: r.execution_time_ms,
  status: r.status,
  exception: r.exception ?? undefined,
});

/** Runs audit page: newest first (id descending). */
export function createPageRunsAudits(db: ReadDb) {
  return async function pageRunsAudits(taskId: string, req: PageRequest): Promise<Omit<RunsAuditPage, 'skip' | 'take'>> {
    const { rows, totalCount } = await pagedRows<Row>(
      db,
      'id, task_id, executed_at, execution_time_ms, status, exception',
      'FROM runs_audit WHERE task_id = ?',
      'id DESC',
      [taskId],
      req,
    );
    return { audits: rows.map(toRunsAudit), totalCount };
  };
}
