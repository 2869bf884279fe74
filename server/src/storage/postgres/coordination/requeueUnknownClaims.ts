import type { PoolClient } from 'pg';
import { taskStatusUpdate } from '../tasks/taskStatusUpdate.js';

/**
 * After a lost connection: this instance's InProgress rows that its engine does not run (claimed
 * by a commit whose answer never arrived) → Queued, with their Queued audit rows, so that they
 * run (once) instead of waiting for a lease that never expires while the instance lives.
 */
export async function requeueUnknownClaims(c: PoolClient, instanceId: string, running: readonly string[], now: number): Promise<number> {
  const { rows } = await c.query<{ n: number }>(
    `WITH requeued AS (
       ${taskStatusUpdate({
         writer: 'requeueUnknownClaims', to: 'Queued', from: ['InProgress'], set: 'instance_id = NULL',
         where: 'instance_id = $1 AND NOT (id = ANY($2::text[]))', returning: 't.id, t.audit_level',
       })}),
     audited AS (INSERT INTO status_audit (task_id, updated_at, new_status) SELECT id, $3, 'Queued' FROM requeued WHERE audit_level = 'Full')
     SELECT COUNT(*) AS n FROM requeued`,
    [instanceId, running, now],
  );
  return rows[0]?.n ?? 0;
}
