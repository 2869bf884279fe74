import type { RecentActivityItem, TaskStatus } from '../../../contracts/index.js';
import { toIso } from '../time.js';
import { shortTypeName } from '../taskRow.js';
import { pendingOccurrenceReads, RECORDS_PENDING } from './pendingOccurrenceReads.js';
import type { ReadDb } from './ReadDb.js';

interface ActivityRow {
  task_id: string;
  new_status: TaskStatus;
  updated_at: number;
  exception: string | null;
  type: string;
}

/**
 * The two lists (each newest first) as one: an entry of `b` goes before the entries of `a` it is
 * strictly newer than; on a tie `a`'s entry comes first.
 */
function mergeNewestFirst(a: ActivityRow[], b: ActivityRow[], limit: number): ActivityRow[] {
  const out: ActivityRow[] = [];
  let i = 0;
  let j = 0;
  while (out.length < limit && (i < a.length || j < b.length)) {
    if (j < b.length && (i >= a.length || b[j]!.updated_at > a[i]!.updated_at)) out.push(b[j++]!);
    else out.push(a[i++]!);
  }
  return out;
}

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
  // Compact occurrences have no audit rows: the Pending entry each would have (at its creation
  // time, where its audit level records it), newest written first (seq: the primary key), merged by time.
  const pending = pendingOccurrenceReads(db);
  const compactSql = `SELECT id AS task_id, 'Pending' AS new_status, created_at AS updated_at, NULL AS exception, type
       FROM pending_occurrence_tasks WHERE ${RECORDS_PENDING} ORDER BY seq DESC LIMIT ?`;
  return async function recentActivity(limit: number): Promise<RecentActivityItem[]> {
    let rows = await db.query<ActivityRow>(
      `SELECT a.task_id, a.new_status, a.updated_at, a.exception, t.type
         FROM status_audit a JOIN tasks t ON t.id = a.task_id
        ORDER BY a.id DESC LIMIT ?`,
      [limit],
    );
    if (pending && (await pending.present())) rows = mergeNewestFirst(rows, await db.query<ActivityRow>(compactSql, [limit]), limit);
    return rows.map((r) => ({
      taskId: r.task_id,
      taskType: shortTypeName(r.type),
      status: r.new_status,
      timestamp: toIso(r.updated_at),
      message: r.exception ? `${ACTIVITY_MESSAGES[r.new_status] ?? r.new_status}: ${r.exception.split('\n')[0]}` : (ACTIVITY_MESSAGES[r.new_status] ?? r.new_status),
    }));
  };
}
