import type { CatchUpBacklog } from '../../../contracts/index.js';
import { toIso } from '../time.js';
import { pendingOccurrenceReads } from './pendingOccurrenceReads.js';
import { queryOne, type ReadDb } from './ReadDb.js';

/** The overview's catch-up backlog over every durable schedule in the store (any range). */
export function createCatchUpBacklog(db: ReadDb) {
  const byStatus = `SELECT status, SUM(n) AS n FROM ${db.dialect.model('stat_tasks')} WHERE is_occurrence = 1 GROUP BY status`;
  // One index seek per not-started status rather than a scan of the open occurrences.
  const oldest = `SELECT MIN(m) AS m FROM (
       SELECT MIN(nominal_slot_at) AS m FROM tasks WHERE parent_task_id IS NOT NULL AND status = 'Pending'
       UNION ALL SELECT MIN(nominal_slot_at) FROM tasks WHERE parent_task_id IS NOT NULL AND status = 'Queued'
       UNION ALL SELECT MIN(nominal_slot_at) FROM tasks WHERE parent_task_id IS NOT NULL AND status = 'WaitingQueue'
       UNION ALL SELECT MIN(nominal_slot_at) FROM tasks WHERE parent_task_id IS NOT NULL AND status = 'ServiceStopped') AS slots`;
  // Compact occurrences are Pending occurrences too (already in the counters): their oldest slot,
  // read while any exist, one seek of the slot index (schedule, slot) per schedule (a MIN over the
  // whole table read every compact row).
  const pending = pendingOccurrenceReads(db);
  const oldestCompactSlot = `SELECT MIN((SELECT MIN(p.nominal_slot_at) FROM pending_occurrences p WHERE p.schedule_ref = r.ref)) FROM occurrence_schedules r`;
  const oldestCompact = `SELECT MIN(m) AS m FROM (${oldest} UNION ALL ${oldestCompactSlot}) AS compact`;
  const halted = `SELECT COUNT(*) AS n FROM tasks WHERE halt IS NOT NULL AND status NOT IN ('Cancelled', 'Completed')`;
  return async function catchUpBacklog(nowMs: number): Promise<CatchUpBacklog> {
    const [rows, first, haltedCount] = await Promise.all([
      db.query<{ status: string; n: number }>(byStatus),
      (async () => queryOne<{ m: number | null }>(db, pending && (await pending.present()) ? oldestCompact : oldest))(),
      queryOne<{ n: number }>(db, halted),
    ]);
    const counts: Record<string, number> = {};
    for (const r of rows) counts[r.status] = r.n;
    const c = (s: string) => counts[s] ?? 0;
    const oldestSlot = first.m;
    return {
      pending: c('Pending') + c('Queued') + c('WaitingQueue') + c('ServiceStopped'),
      active: c('InProgress'),
      failed: c('Failed'),
      skipped: c('Cancelled'),
      completed: c('Completed'),
      oldestPendingSlotUtc: toIso(oldestSlot),
      lagSeconds: oldestSlot === null ? 0 : Math.max(0, Math.floor((nowMs - oldestSlot) / 1000)),
      haltedSchedules: haltedCount.n,
    };
  };
}
