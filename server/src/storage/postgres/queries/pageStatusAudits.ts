import type { StatusAuditPage, TaskStatus } from '../../../contracts/index.js';
import type { PageRequest } from '../../MonitoringStore.js';
import { toStatusAudit } from '../../queries/pageStatusAudits.js';
import type { PgQuery } from './PgQuery.js';

/** Status audit of one task, newest first (id descending), counted and sliced by PostgreSQL. */
export function pgPageStatusAudits(q: PgQuery) {
  return async function pageStatusAudits(taskId: string, req: PageRequest): Promise<Omit<StatusAuditPage, 'skip' | 'take'>> {
    const [count, rows] = await Promise.all([
      q<{ n: number }>(`SELECT COUNT(*) AS n FROM status_audit WHERE task_id = $1`, [taskId]),
      req.take === 0
        ? Promise.resolve([])
        : q<{ id: number; task_id: string; updated_at: number; new_status: TaskStatus; exception: string | null; changed_by: string | null }>(
            `SELECT id, task_id, updated_at, new_status, exception, changed_by FROM status_audit WHERE task_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`,
            [taskId, req.take, req.skip],
          ),
    ]);
    return { audits: rows.map(toStatusAudit), totalCount: count[0]!.n };
  };
}
