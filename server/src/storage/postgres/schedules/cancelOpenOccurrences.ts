import type { PoolClient } from 'pg';
import type { AuditLevel } from '../../../contracts/index.js';
import { insertStatusAudits } from '../tasks/insertStatusAudits.js';
import { taskStatusUpdate } from '../tasks/taskStatusUpdate.js';
import { takesRowsAway } from '../connection/rowsTakenAway.js';

export interface OpenOccurrence {
  id: string;
  nominal_slot_at: number;
  schedule_version: number;
  audit_level: AuditLevel;
}

/** What a cancel of a schedule's occurrences did: how many it cancelled, and how many it left because another transaction held them. */
export interface OccurrencesCancelled {
  cancelled: number;
  /** Not-started occurrences (of those `which` keeps) locked by another transaction: see cancelSkippedOccurrences. */
  skipped: number;
}

/**
 * A schedule's not-started occurrences (Pending, Queued, WaitingQueue; those `which` keeps, all
 * without it) → Cancelled, with their audit rows. Rows another transaction holds (an engine's
 * claim, start or promotion, for the few milliseconds of its commit) are skipped, not waited for:
 * waiting while holding the others could deadlock with that commit. They are counted in `skipped`
 * for the caller to cancel once its own transaction has committed (cancelSkippedOccurrences).
 */
export async function cancelOpenOccurrences(c: PoolClient, scheduleId: string, now: number, which?: (o: OpenOccurrence) => boolean): Promise<OccurrencesCancelled> {
  const open = `SELECT id, nominal_slot_at, schedule_version, audit_level FROM tasks
      WHERE parent_task_id = $1 AND status IN ('Pending', 'Queued', 'WaitingQueue')`;
  const { rows } = await c.query<OpenOccurrence>(`${open} FOR UPDATE SKIP LOCKED`, [scheduleId]);
  const chosen = which ? rows.filter(which) : rows;
  let cancelled = 0;
  if (chosen.length > 0) {
    takesRowsAway(c);
    const res = await c.query<{ id: string; audit_level: AuditLevel }>(
      taskStatusUpdate({
        writer: 'cancelOpenOccurrences', to: 'Cancelled', from: ['Pending', 'Queued', 'WaitingQueue'], set: 'throttled_until = NULL, reserved_by = NULL, reserved_at = NULL',
        where: 'id = ANY($1::text[])', returning: 't.id, t.audit_level',
      }),
      [chosen.map((o) => o.id)],
    );
    await insertStatusAudits(c, res.rows.map((r) => ({ taskId: r.id, level: r.audit_level, at: now, status: 'Cancelled' as const })));
    cancelled = res.rows.length;
  }
  // Still open now: only rows another transaction held (this one cancelled every other it chose).
  const left = (await c.query<OpenOccurrence>(open, [scheduleId])).rows;
  return { cancelled, skipped: (which ? left.filter(which) : left).length };
}
