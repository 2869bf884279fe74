import type { RecentActivityItem, TaskStatus } from '../../../contracts/index.js';
import { ACTIVITY_MESSAGES } from '../../queries/recentActivity.js';
import { shortTypeName } from '../../queries/taskRow.js';
import { toIso } from '../../time.js';
import type { PgQuery } from './PgQuery.js';

/** The newest status transitions (status audit, id descending: an index walk). */
export function pgRecentActivity(q: PgQuery) {
  return async function recentActivity(limit: number): Promise<RecentActivityItem[]> {
    const rows = await q<{ task_id: string; new_status: TaskStatus; updated_at: number; exception: string | null; type: string }>(
      `SELECT a.task_id, a.new_status, a.updated_at, a.exception, t.type
         FROM status_audit a JOIN tasks t ON t.id = a.task_id
        ORDER BY a.id DESC LIMIT $1`,
      [limit],
    );
    return rows.map((r) => {
      const base = ACTIVITY_MESSAGES[r.new_status] ?? r.new_status;
      return {
        taskId: r.task_id,
        taskType: shortTypeName(r.type),
        status: r.new_status,
        timestamp: toIso(r.updated_at),
        message: r.exception ? `${base}: ${r.exception.split('\n')[0]}` : base,
      };
    });
  };
}
