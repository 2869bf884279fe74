import type { Database } from 'better-sqlite3';
import { IS_SCHEDULE_ROW } from './TaskRow.js';

/**
 * Earliest instant at which a Pending row becomes due or a throttled Queued row is released (null:
 * none). Throttle marks already past are left out: those rows are claimed when a worker frees up.
 */
export function prepareNextWakeAt(db: Database, compact: boolean): (now: number) => number | null {
  // The due-work index holds Pending rows by due time: its first entries answer (pinned, as the
  // planner may pick the status index instead and read every Pending row).
  const due = db.prepare(`SELECT MIN(scheduled_at) FROM tasks INDEXED BY ix_tasks_pending_due WHERE status = 'Pending' AND scheduled_at IS NOT NULL
    AND NOT ${IS_SCHEDULE_ROW}`).pluck();
  // Compact occurrences (migration 15) by due time.
  const compactDue = compact ? db.prepare(`SELECT MIN(scheduled_at) FROM pending_occurrences`).pluck() : null;
  const throttled = db.prepare(`SELECT MIN(throttled_until) FROM tasks WHERE throttled_until > ?`).pluck();
  return (now) => {
    const taskDue = due.get() as number | null;
    const compactAt = compactDue === null ? null : (compactDue.get() as number | null);
    const a = taskDue === null ? compactAt : compactAt === null ? taskDue : Math.min(taskDue, compactAt);
    const b = throttled.get(now) as number | null;
    if (a === null) return b;
    if (b === null) return a;
    return Math.min(a, b);
  };
}
