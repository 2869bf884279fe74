import type { Database } from 'better-sqlite3';
import type { RunsAuditEntry, RunsAuditPage } from '../../contracts/index.js';
import type { PageRequest } from '../MonitoringStore.js';
import { toIso } from '../time.js';

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
export function createPageRunsAudits(db: Database) {
  const page = db.prepare(
    `SELECT id, task_id, executed_at, execution_time_ms, status, exception FROM runs_audit WHERE task_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`,
  );
  const count = db.prepare(`SELECT COUNT(*) FROM runs_audit WHERE task_id = ?`).pluck();
  return function pageRunsAudits(taskId: string, req: PageRequest): Omit<RunsAuditPage, 'skip' | 'take'> {
    const totalCount = count.get(taskId) as number;
    const audits = req.take === 0 ? [] : (page.all(taskId, req.take, req.skip) as Row[]).map(toRunsAudit);
    return { audits, totalCount };
  };
}
