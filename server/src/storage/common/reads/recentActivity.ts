import type { RecentActivityItem, TaskStatus } from '../../../contracts/index.js';
import { toIso } from '../time.js';
import { shortTypeName } from '../taskRow.js';
import type { ReadDb } from './ReadDb.js';

export const ACTIVITY_MESSAGES: Record<TaskStatus, string> = {
  WaitingQueue: 'Task is waiting for room in its queue',
  Queued: 'Task queued',
  InProgress: 'Task started',
  Pending: 'Task scheduled',
  Cancelled: 'Task cancelled',
  Completed: 'Task completed',
  Failed: 'Task failed',
  ServiceStopped: 'Task stopped by a service shutdown',
};

/** Recent activity: the newest status transitions (status audit, id descending: an index walk). */
export function createRecentActivity(db: ReadDb) {
  return async function recentActivity(limit: number): Promise<RecentActivityItem[]> {
    const rows = await db.query<{ task_id: string; new_status: TaskStatus; updated_at: number; exception: string | null; type: string }>(
      `SELECT a.task_id, a.new_status, a.updated_at, a.exception, t.type
         FROM status_audit a JOIN tasks t ON t.id = a.task_id
        ORDER BY a.id DESC LIMIT ?`,
      [limit],
    );
    return rows.map((r) => ({
      taskId: r.task_id,
      taskType: shortTypeName(r.type),
      status: r.new_status,
      timestamp: toIso(r.updated_at),
      message: r.exception ? `${ACTIVITY_MESSAGES[r.new_status] ?? r.new_status}: ${r.exception.split('\n')[0]}` : (ACTIVITY_MESSAGES[r.new_status] ?? r.new_status),
    }));
  };
}
