import { hostname } from 'node:os';
import type { PoolClient } from 'pg';
import type { AuditLevel } from '../../../contracts/index.js';
import { abandonedRunError, type AbandonedTask } from '../../common/abandonedRuns.js';
import { auditAllows } from '../../common/auditAllows.js';
import type { PostgresStorage } from '../PostgresStorage.js';
import { insertStatusAudits } from './statusAudits.js';
import { taskStatusUpdate } from './taskStatusUpdate.js';

/**
 * The database server's clock in ms since the epoch. Heartbeats and lease expiry are both read
 * on it, so hosts whose clocks disagree still agree on whose lease has lapsed.
 */
const DB_NOW_MS = `(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;

/** Registers (or renews) this engine instance's heartbeat row, stamped by the database clock. */
export async function heartbeat(storage: PostgresStorage, instanceId: string): Promise<void> {
  await storage.query(
    `INSERT INTO engine_instances (id, host, pid, started_at, heartbeat_at) VALUES ($1, $2, $3, ${DB_NOW_MS}, ${DB_NOW_MS})
     ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
    [instanceId, hostname(), process.pid],
  );
}

/**
 * Lease recovery: InProgress rows whose instance missed its lease (heartbeat older than
 * `leaseMs` by the database clock, or no instance row at all) are abandoned runs (see
 * recoverAbandonedRuns); the dead instances' rows are removed. One instance at a time
 * (transaction advisory lock).
 */
export async function recoverExpiredLeases(
  c: PoolClient, schema: string, now: number, leaseMs: number, maxAbandoned: number,
): Promise<{ requeued: number; failed: AbandonedTask[] }> {
  const { rows: lock } = await c.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext('svc_monitor.leases:' || $1)) AS ok`, [schema]);
  if (!lock[0]?.ok) return { requeued: 0, failed: [] };
  const out = await recoverAbandonedRuns(
    c,
    `NOT EXISTS (SELECT 1 FROM engine_instances i WHERE i.id = t.instance_id AND i.heartbeat_at >= ${DB_NOW_MS} - $5)`,
    [leaseMs],
    now,
    maxAbandoned,
  );
  await c.query(`DELETE FROM engine_instances WHERE heartbeat_at < ${DB_NOW_MS} - $1`, [leaseMs]);
  return out;
}

/**
 * A restarted instance with a fixed id: its earlier life's InProgress rows are abandoned runs,
 * recovered before its first heartbeat as the new life could make them look alive.
 */
export function recoverOwnEarlierRuns(c: PoolClient, instanceId: string, now: number, maxAbandoned: number) {
  return recoverAbandonedRuns(c, `t.instance_id = $5`, [instanceId], now, maxAbandoned);
}

/**
 * InProgress rows matching `where` (over `t`, parameters from $5) count one more abandoned run
 * each: Queued again (delivery is at least once), or Failed as a failed run once abandoned more
 * than `maxAbandoned` times. Status audits and (inline recurring) runs audits are written here;
 * the read models follow through the table's triggers.
 */
/** The abandoned-run error text before and after its count, for SQL to put the row's count between. */
const ABANDONED_ERROR_AROUND_COUNT = abandonedRunError('\u0001').split('\u0001') as [string, string];

async function recoverAbandonedRuns(
  c: PoolClient, where: string, params: unknown[], now: number, maxAbandoned: number,
): Promise<{ requeued: number; failed: AbandonedTask[] }> {
  const over = `t.abandoned_count + 1 > $2`;
  const { rows } = await c.query<AbandonedTask & { audit_level: AuditLevel; status: 'Queued' | 'Failed'; is_recurring: number }>(
    taskStatusUpdate({
      writer: 'recoverAbandonedRuns', to: { expr: `CASE WHEN ${over} THEN 'Failed' ELSE 'Queued' END`, statuses: ['Failed', 'Queued'] }, from: ['InProgress'],
      set: `abandoned_count = t.abandoned_count + 1, instance_id = NULL, throttled_until = NULL,
        last_execution_at = CASE WHEN ${over} THEN $1 ELSE t.last_execution_at END,
        execution_time_ms = CASE WHEN ${over} THEN 0 ELSE t.execution_time_ms END,
        last_outcome = CASE WHEN ${over} THEN 'Failed' ELSE t.last_outcome END,
        run_count = t.run_count + CASE WHEN ${over} THEN 1 ELSE 0 END,
        exception = CASE WHEN ${over} THEN $3 || (t.abandoned_count + 1)::text || $4 ELSE t.exception END`,
      where,
      returning: 't.id, t.type, t.handler, t.request, t.queue, t.parent_task_id, t.exception, t.audit_level, t.status, t.is_recurring',
    }),
    [now, maxAbandoned, ...ABANDONED_ERROR_AROUND_COUNT, ...params],
  );
  const failed = rows.filter((r) => r.status === 'Failed');
  await insertStatusAudits(c, rows.map((r) => ({
    taskId: r.id, level: r.audit_level, at: now, status: r.status, exception: r.status === 'Failed' ? r.exception : null,
  })));
  const runAudits = failed.filter((r) => r.is_recurring === 1 && auditAllows(r.audit_level, r.exception));
  if (runAudits.length > 0) {
    await c.query(
      `INSERT INTO runs_audit (task_id, executed_at, execution_time_ms, status, exception)
       SELECT id, $2::bigint, 0, 'Failed', exception FROM tasks WHERE id = ANY($1::text[])`,
      [runAudits.map((r) => r.id), now],
    );
  }
  return {
    requeued: rows.length - failed.length,
    failed: failed.map((r) => ({
      id: r.id, type: r.type, handler: r.handler, request: r.request, queue: r.queue, parent_task_id: r.parent_task_id, exception: r.exception, failedAt: now,
    })),
  };
}

