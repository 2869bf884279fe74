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

/**
 * A schedule's not-started occurrences (Pending, Queued, WaitingQueue; those `which` keeps, all
 * without it) → Cancelled, with their audit rows. Rows another transaction holds are skipped.
 * Answers how many were cancelled.
 */
export async function cancelOpenOccurrences(c: PoolClient, scheduleId: string, now: number, which?: (o: OpenOccurrence) => boolean): Promise<number> {
  const { rows } = await c.query<OpenOccurrence>(
    `SELECT id, nominal_slot_at, schedule_version, audit_level FROM tasks
      WHERE parent_task_id = $1 AND status IN ('Pending', 'Queued', 'WaitingQueue') FOR UPDATE SKIP LOCKED`,
    [scheduleId],
  );
  const chosen = which ? rows.filter(which) : rows;
  if (chosen.length === 0) return 0;
  takesRowsAway(c);
  const res = await c.query<{ id: string; audit_level: AuditLevel }>(
    taskStatusUpdate({
      writer: 'cancelOpenOccurrences', to: 'Cancelled', from: ['Pending', 'Queued', 'WaitingQueue'], set: 'throttled_until = NULL, reserved_by = NULL, reserved_at = NULL',
      where: 'id = ANY($1::text[])', returning: 't.id, t.audit_level',
    }),
    [chosen.map((o) => o.id)],
  );
  await insertStatusAudits(c, res.rows.map((r) => ({ taskId: r.id, level: r.audit_level, at: now, status: 'Cancelled' as const })));
  return res.rows.length;
}
