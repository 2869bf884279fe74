import type { RunsAuditPage } from '../../../contracts/index.js';
import type { PageRequest } from '../../MonitoringStore.js';
import { toRunsAudit } from '../../queries/pageRunsAudits.js';
import type { PgQuery } from './PgQuery.js';

/** Runs audit of one task, newest first (id descending). */
export function pgPageRunsAudits(q: PgQuery) {
  return async function pageRunsAudits(taskId: string, req: PageRequest): Promise<Omit<RunsAuditPage, 'skip' | 'take'>> {
    const [count, rows] = await Promise.all([
      q<{ n: number }>(`SELECT COUNT(*) AS n FROM runs_audit WHERE task_id = $1`, [taskId]),
      req.take === 0
        ? Promise.resolve([])
        : q<Parameters<typeof toRunsAudit>[0]>(
            `SELECT id, task_id, executed_at, execution_time_ms, status, exception FROM runs_audit WHERE task_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`,
            [taskId, req.take, req.skip],
          ),
    ]);
    return { audits: rows.map(toRunsAudit), totalCount: count[0]!.n };
  };
}
