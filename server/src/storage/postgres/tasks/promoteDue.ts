import type { PoolClient } from 'pg';
import type { AuditLevel } from '../../../contracts/index.js';
import type { QueueAdmission } from '../coordination/queueAdmission.js';
import { checkTransition } from '../../common/statusTransitions.js';
import { insertStatusAudits } from './insertStatusAudits.js';
import { taskStatusUpdate } from './taskStatusUpdate.js';
import { spillPendingOccurrences } from '../schedules/spillPendingOccurrences.js';

/**
 * Due Pending rows (durable schedule rows excluded; an inline recurring row has no occurrence
 * mode, hence IS NOT DISTINCT FROM: a NULL must not exclude it) → Queued, or WaitingQueue when their queue is
 * at capacity; rows another instance is promoting are skipped (SKIP LOCKED). Returns how many
 * candidates were taken (equal to `limit`: there may be more).
 */
export async function promoteDue(c: PoolClient, now: number, limit: number, admission: QueueAdmission): Promise<number> {
  // Due compact occurrences (migration 19) become task rows first, at most a batch of them.
  await spillPendingOccurrences(c, { due: now }, limit);
  const { rows } = await c.query<{ id: string; queue: string; audit_level: AuditLevel }>(
    `SELECT id, queue, audit_level FROM tasks
      WHERE status = 'Pending' AND scheduled_at <= $1 AND NOT (occurrence_mode IS NOT DISTINCT FROM 'Durable' AND parent_task_id IS NULL AND is_recurring = 1)
      ORDER BY scheduled_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [now, limit],
  );
  if (rows.length === 0) return 0;
  const statuses: ('Queued' | 'WaitingQueue')[] = [];
  for (const r of rows) statuses.push(await admission.admit(r.queue));
  // A status the transition table refuses is reported and not written.
  const moving = rows.map((r, i) => ({ ...r, status: statuses[i]! })).filter((m) => checkTransition('promoteDue', 'Pending', m.status, [m.id]));
  await c.query(
    taskStatusUpdate({
      writer: 'promoteDue', to: { expr: 'p.status', statuses: ['Queued', 'WaitingQueue'] }, from: ['Pending'],
      using: 'unnest($1::text[], $2::text[]) AS p(id, status)', where: 't.id = p.id',
    }),
    [moving.map((m) => m.id), moving.map((m) => m.status)],
  );
  await insertStatusAudits(c, moving.map((m) => ({ taskId: m.id, level: m.audit_level, at: now, status: m.status })));
  return rows.length;
}
