import type { Database } from 'better-sqlite3';
import type { CatchUpBacklog } from '../../contracts/index.js';
import { toIso } from '../time.js';

/** The overview's catch-up backlog over every durable schedule in the store (any range). */
export function createCatchUpBacklog(db: Database) {
  const byStatus = db.prepare(`SELECT status, SUM(n) AS n FROM stat_tasks WHERE is_occurrence = 1 GROUP BY status`);
  const oldest = db
    .prepare(
      `SELECT MIN(m) FROM (
         SELECT MIN(nominal_slot_at) AS m FROM tasks WHERE parent_task_id IS NOT NULL AND status = 'Pending'
         UNION ALL SELECT MIN(nominal_slot_at) FROM tasks WHERE parent_task_id IS NOT NULL AND status = 'Queued'
         UNION ALL SELECT MIN(nominal_slot_at) FROM tasks WHERE parent_task_id IS NOT NULL AND status = 'WaitingQueue'
         UNION ALL SELECT MIN(nominal_slot_at) FROM tasks WHERE parent_task_id IS NOT NULL AND status = 'ServiceStopped')`,
    )
    .pluck();
  const halted = db
    .prepare(`SELECT COUNT(*) FROM tasks WHERE halt IS NOT NULL AND status NOT IN ('Cancelled', 'Completed')`)
    .pluck();
  return function catchUpBacklog(nowMs: number): CatchUpBacklog {
    const counts: Record<string, number> = {};
    for (const r of byStatus.all() as { status: string; n: number }[]) counts[r.status] = r.n;
    const c = (s: string) => counts[s] ?? 0;
    const oldestSlot = oldest.get() as number | null;
    return {
      pending: c('Pending') + c('Queued') + c('WaitingQueue') + c('ServiceStopped'),
      active: c('InProgress'),
      failed: c('Failed'),
      skipped: c('Cancelled'),
      completed: c('Completed'),
      oldestPendingSlotUtc: toIso(oldestSlot),
      lagSeconds: oldestSlot === null ? 0 : Math.max(0, Math.floor((nowMs - oldestSlot) / 1000)),
      haltedSchedules: halted.get() as number,
    };
  };
}
