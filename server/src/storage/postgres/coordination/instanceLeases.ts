import { hostname } from 'node:os';
import type { PoolClient } from 'pg';
import type { AuditLevel } from '../../../contracts/index.js';
import { abandonedRunError, type AbandonedTask } from '../../common/abandonedRuns.js';
import { auditAllows } from '../../common/auditAllows.js';
import { DB_NOW_MS } from '../connection/databaseClock.js';
import type { PostgresStorage } from '../PostgresStorage.js';
import { insertStatusAudits } from '../tasks/insertStatusAudits.js';
import { taskStatusUpdate } from '../tasks/taskStatusUpdate.js';

/**
 * Registers (or renews) this engine instance's heartbeat row, stamped by the database clock; the
 * round trip is a reading of that clock. Returns whether the lease had lapsed before this renewal:
 * the row was gone (another instance's recovery removes an expired one) or its previous heartbeat
 * was older than `leaseMs` when this one was written. Any recovery that found the instance
 * expired did so before this statement, on a heartbeat at least as old, so a lapse it acted on is
 * always reported here (a fresh registration has no row either: the caller tells the two apart).
 */
export async function heartbeat(storage: PostgresStorage, instanceId: string, leaseMs: number): Promise<{ lapsed: boolean }> {
  let lapsed = false;
  await storage.clock.measure(async () => {
    const { rows } = await storage.query<{ at: number; prev: number | null }>(
      `WITH prev AS (SELECT heartbeat_at FROM engine_instances WHERE id = $1)
       INSERT INTO engine_instances (id, host, pid, started_at, heartbeat_at) VALUES ($1, $2, $3, ${DB_NOW_MS}, ${DB_NOW_MS})
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at RETURNING heartbeat_at AS at, (SELECT heartbeat_at FROM prev) AS prev`,
      [instanceId, hostname(), process.pid],
    );
    const { at, prev } = rows[0]!;
    lapsed = prev === null || at - prev > leaseMs;
    return at;
  });
  return { lapsed };
}

/**
 * An instance that learnt its lease lapsed gives up the rows of its runs that no longer go on
 * here: its InProgress rows outside `keep` (runs whose handler still runs or whose writes are
 * still queued here) count one abandoned run each (see recoverAbandonedRuns; a ServiceStopped
 * row's handler may still run here: it lapses with this instance, as at a stop),
 * and its reservations outside `keep` are handed back uncounted (no handler began for them).
 * Under the recovery lock, waited for: a recovery of this instance by another one is over first.
 */
export async function recoverRunsOfLapsedLease(
  c: PoolClient, schema: string, instanceId: string, keep: readonly string[], now: number, maxAbandoned: number,
): Promise<{ requeued: number; failed: AbandonedTask[] }> {
  await c.query(`SELECT pg_advisory_xact_lock(hashtext('svc_monitor.leases:' || $1))`, [schema]);
  const out = await recoverAbandonedRuns(
    c, { runs: { sql: `t.status = 'InProgress' AND t.instance_id = $5 AND NOT (t.id = ANY($6::text[]))`, params: [instanceId, keep] }, reserved: null }, now, maxAbandoned,
  );
  const { rowCount } = await c.query(
    `UPDATE tasks t SET reserved_by = NULL, reserved_at = NULL WHERE t.status = 'Queued' AND t.reserved_by = $1 AND NOT (t.id = ANY($2::text[]))`,
    [instanceId, keep],
  );
  return { requeued: out.requeued + (rowCount ?? 0), failed: out.failed };
}

/**
 * Lease recovery: InProgress and ServiceStopped rows whose instance is gone (heartbeat older than
 * `leaseMs` by the database clock, or no instance row at all: removed at a clean stop) are
 * abandoned runs (see recoverAbandonedRuns), and so are the Queued rows still reserved by an instance found expired
 * here (looked for only then: the reserved rows have no index of their own, and a dead instance
 * is found expired once, before its row is removed; only the rows found expired are removed).
 * A row whose instance's lease is alive is never taken: a ServiceStopped row's handler may still
 * run in its stopping process. One instance at a time (transaction advisory lock).
 */
export async function recoverExpiredLeases(
  c: PoolClient, schema: string, now: number, leaseMs: number, maxAbandoned: number,
): Promise<{ requeued: number; failed: AbandonedTask[] }> {
  const { rows: lock } = await c.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext('svc_monitor.leases:' || $1)) AS ok`, [schema]);
  if (!lock[0]?.ok) return { requeued: 0, failed: [] };
  const { rows: expired } = await c.query<{ id: string }>(`SELECT id FROM engine_instances WHERE heartbeat_at < ${DB_NOW_MS} - $1`, [leaseMs]);
  const out = await recoverAbandonedRuns(
    c,
    {
      runs: { sql: `NOT EXISTS (SELECT 1 FROM engine_instances i WHERE i.id = t.instance_id AND i.heartbeat_at >= ${DB_NOW_MS} - $5)`, params: [leaseMs] },
      reserved: expired.length > 0 ? { sql: `t.reserved_by = ANY($5::text[])`, params: [expired.map((r) => r.id)] } : null,
    },
    now,
    maxAbandoned,
  );
  // Only the instances whose reserved rows were just recovered: one that expired (or was
  // registered already expired) after the SELECT above keeps its row for the next tick, which
  // counts its reservations; deleting it here would lose them.
  if (expired.length > 0) {
    await c.query(`DELETE FROM engine_instances WHERE id = ANY($1::text[]) AND heartbeat_at < ${DB_NOW_MS} - $2`, [expired.map((r) => r.id), leaseMs]);
  }
  return out;
}

/**
 * A restarted instance with a fixed id: its earlier life's InProgress and ServiceStopped rows (and, with `reserved`,
 * its reserved rows: only a fixed id can have an earlier life) are abandoned runs, recovered
 * before its first heartbeat as the new life could make them look alive.
 */
export function recoverOwnEarlierRuns(c: PoolClient, instanceId: string, now: number, maxAbandoned: number, reserved: boolean) {
  return recoverAbandonedRuns(
    c,
    { runs: { sql: `t.instance_id = $5`, params: [instanceId] }, reserved: reserved ? { sql: `t.reserved_by = $5`, params: [instanceId] } : null },
    now,
    maxAbandoned,
  );
}

/**
 * Rows a claim of this instance took over from another instance's lapsed reservation, already
 * counted by that claim (claimTasks, fastCommit) and now abandoned more than `maxAbandoned` times:
 * Failed as recovery fails them (still reserved by this instance: not run).
 */
export function failTakenOverClaims(c: PoolClient, ids: readonly string[], instanceId: string, now: number, maxAbandoned: number) {
  return recoverAbandonedRuns(
    c,
    { runs: null, reserved: { sql: `t.id = ANY($5::text[]) AND t.reserved_by = $6`, params: [ids, instanceId] } },
    now,
    maxAbandoned,
    true,
  );
}

/** The abandoned-run error text before and after its count, for SQL to put the row's count between. */
const ABANDONED_ERROR_AROUND_COUNT = abandonedRunError('\u0001').split('\u0001') as [string, string];

/** An SQL predicate over `t` choosing a dead owner's rows, with its parameters (numbered from $5). */
interface DeadRows {
  sql: string;
  params: unknown[];
}

/**
 * Rows of a dead owner count one more abandoned run each: InProgress and ServiceStopped rows
 * (a run that began; a stop left the latter's outcome unknown) matching `dead.runs` and Queued rows still reserved matching `dead.reserved` (SQL predicates over
 * `t`, parameters from $5; null: none). A reserved row counts because its handler may have
 * begun, and killed its process, before its start was written. Each is Queued again without a
 * reservation (delivery is at least once), or Failed as a failed run once abandoned more than
 * `maxAbandoned` times. `counted`: the rows' counts already hold this abandonment (a claim's
 * takeover); only those past `maxAbandoned` are ended here, the others are left as they are.
 * Status audits (for a status that moved) and (inline recurring) runs audits are written here;
 * the read models follow through the table's triggers.
 */
async function recoverAbandonedRuns(
  c: PoolClient, dead: { runs: DeadRows | null; reserved: DeadRows | null }, now: number, maxAbandoned: number, counted = false,
): Promise<{ requeued: number; failed: AbandonedTask[] }> {
  const times = counted ? 't.abandoned_count' : '(t.abandoned_count + 1)';
  const over = `${times} > $2`;
  type Recovered = AbandonedTask & { audit_level: AuditLevel; status: 'Queued' | 'Failed'; is_recurring: number };
  const set = `abandoned_count = ${times}, instance_id = NULL, throttled_until = NULL, reserved_by = NULL, reserved_at = NULL,
        last_execution_at = CASE WHEN ${over} THEN $1 ELSE t.last_execution_at END,
        execution_time_ms = CASE WHEN ${over} THEN 0 ELSE t.execution_time_ms END,
        last_outcome = CASE WHEN ${over} THEN 'Failed' ELSE t.last_outcome END,
        run_count = t.run_count + CASE WHEN ${over} THEN 1 ELSE 0 END,
        exception = CASE WHEN ${over} THEN $3 || ${times}::text || $4 ELSE t.exception END`;
  const returning = 't.id, t.type, t.handler, t.request, t.queue, t.parent_task_id, t.exception, t.audit_level, t.status, t.is_recurring';
  const values = (dead: DeadRows) => [now, maxAbandoned, ...ABANDONED_ERROR_AROUND_COUNT, ...dead.params];
  const writer = 'recoverAbandonedRuns';
  /** `moved`: the row's status changed (a reserved row re-queued stays Queued: no audit). */
  const rows: (Recovered & { moved: boolean })[] = [];
  if (dead.runs !== null) {
    // Rows whose run began: Queued again, or Failed past maxAbandoned.
    const running = await c.query<Recovered>(
      taskStatusUpdate({
        writer, to: { expr: `CASE WHEN ${over} THEN 'Failed' ELSE 'Queued' END`, statuses: ['Failed', 'Queued'] }, from: ['InProgress', 'ServiceStopped'], set,
        where: dead.runs.sql, returning,
      }),
      values(dead.runs),
    );
    for (const r of running.rows) rows.push({ ...r, moved: true });
  }
  if (dead.reserved !== null) {
    const reserved = `t.reserved_by IS NOT NULL AND (${dead.reserved.sql})`;
    // Reserved rows past maxAbandoned: Failed (their handler may have begun).
    const failedReserved = await c.query<Recovered>(
      taskStatusUpdate({ writer, to: 'Failed', from: ['Queued'], set, where: `${reserved} AND ${over}`, returning }),
      values(dead.reserved),
    );
    for (const r of failedReserved.rows) rows.push({ ...r, moved: true });
    if (!counted) {
      // The other reserved rows stay Queued (no status change, no audit), counted and claimable by any instance.
      const unreserved = await c.query<Recovered>(
        `UPDATE tasks t SET ${set} WHERE t.status = 'Queued' AND ${reserved} AND NOT (${over}) RETURNING ${returning}`,
        values(dead.reserved),
      );
      for (const r of unreserved.rows) rows.push({ ...r, moved: false });
    }
  }
  const failed = rows.filter((r) => r.status === 'Failed');
  await insertStatusAudits(c, rows.filter((r) => r.moved).map((r) => ({
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

