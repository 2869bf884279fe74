import type { CatchUpBacklog } from '../../../contracts/index.js';
import { toIso } from '../../time.js';
import type { PgQuery } from './PgQuery.js';

/** Catch-up backlog over every durable schedule in the store (any range). */
export function pgCatchUpBacklog(q: PgQuery) {
  return async function catchUpBacklog(nowMs: number): Promise<CatchUpBacklog> {
    const [byStatus, [oldest], [halted]] = await Promise.all([
      q<{ status: string; n: number }>(`SELECT status, SUM(n) AS n FROM stat_tasks_v WHERE is_occurrence = 1 GROUP BY status`),
      q<{ m: number | null }>(
        `SELECT MIN(nominal_slot_at) AS m FROM tasks
          WHERE parent_task_id IS NOT NULL AND status IN ('Pending', 'Queued', 'WaitingQueue', 'ServiceStopped')`,
      ),
      q<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks WHERE halt IS NOT NULL AND status NOT IN ('Cancelled', 'Completed')`),
    ]);
    const counts: Record<string, number> = {};
    for (const r of byStatus) counts[r.status] = r.n;
    const c = (s: string) => counts[s] ?? 0;
    const oldestSlot = oldest?.m ?? null;
    return {
      pending: c('Pending') + c('Queued') + c('WaitingQueue') + c('ServiceStopped'),
      active: c('InProgress'),
      failed: c('Failed'),
      skipped: c('Cancelled'),
      completed: c('Completed'),
      oldestPendingSlotUtc: toIso(oldestSlot),
      lagSeconds: oldestSlot === null ? 0 : Math.max(0, Math.floor((nowMs - oldestSlot) / 1000)),
      haltedSchedules: halted?.n ?? 0,
    };
  };
}
