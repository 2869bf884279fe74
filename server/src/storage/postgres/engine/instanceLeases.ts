import { hostname } from 'node:os';
import type { PoolClient } from 'pg';
import type { AuditLevel } from '../../../contracts/index.js';
import type { PostgresStorage } from '../PostgresStorage.js';
import { insertStatusAudits } from './statusAudits.js';

/** Registers (or renews) this engine instance's heartbeat row. */
export async function heartbeat(storage: PostgresStorage, instanceId: string, now: number): Promise<void> {
  await storage.query(
    `INSERT INTO engine_instances (id, host, pid, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
    [instanceId, hostname(), process.pid, now],
  );
}

/**
 * Lease recovery: InProgress rows whose instance missed its lease (heartbeat older than
 * `leaseMs`, or no instance row at all) → Queued, as a crashed single process is recovered at
 * start (delivery is at least once); the dead instances' rows are removed. One instance at a
 * time (transaction advisory lock); returns the rows re-queued.
 */
export async function recoverExpiredLeases(c: PoolClient, schema: string, now: number, leaseMs: number): Promise<number> {
  const { rows: lock } = await c.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext('svc_monitor.leases:' || $1)) AS ok`, [schema]);
  if (!lock[0]?.ok) return 0;
  const { rows } = await c.query<{ id: string; audit_level: AuditLevel }>(
    `UPDATE tasks t SET status = 'Queued', instance_id = NULL, throttled_until = NULL
      WHERE t.status = 'InProgress'
        AND NOT EXISTS (SELECT 1 FROM engine_instances i WHERE i.id = t.instance_id AND i.heartbeat_at >= $1)
      RETURNING t.id, t.audit_level`,
    [now - leaseMs],
  );
  await c.query(`DELETE FROM engine_instances WHERE heartbeat_at < $1`, [now - leaseMs]);
  await insertStatusAudits(c, rows.map((r) => ({ taskId: r.id, level: r.audit_level, at: now, status: 'Queued' as const })));
  return rows.length;
}
