import type { PoolClient } from 'pg';
import type { AuditLevel } from '../../../contracts/index.js';
import type { QueueAdmission } from '../coordination/queueAdmission.js';
import { insertStatusAudits } from './insertStatusAudits.js';
import { taskStatusUpdate } from './taskStatusUpdate.js';

/** WaitingQueue → Queued for the oldest rows of each capped queue while it has room (under the queue's lock). */
export async function admitWaiting(c: PoolClient, admission: QueueAdmission, now: number, queues = admission.cappedQueues()): Promise<number> {
  let admitted = 0;
  for (const queue of queues) {
    const room = await admission.room(queue);
    if (room <= 0) continue;
    const limit = room === Infinity ? null : room;
    const { rows } = await c.query<{ id: string; audit_level: AuditLevel }>(
      taskStatusUpdate({
        writer: 'admitWaiting', to: 'Queued', from: ['WaitingQueue'],
        where: `id IN (SELECT id FROM tasks WHERE queue = $1 AND status = 'WaitingQueue' ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
        returning: 't.id, t.audit_level',
      }),
      [queue, limit],
    );
    if (room !== Infinity) await admission.take(queue, rows.length);
    await insertStatusAudits(c, rows.map((r) => ({ taskId: r.id, level: r.audit_level, at: now, status: 'Queued' as const })));
    admitted += rows.length;
  }
  return admitted;
}
