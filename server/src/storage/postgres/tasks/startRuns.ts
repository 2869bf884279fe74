import type { PoolClient } from 'pg';
import type { Reservation, StartedRun } from '../../EngineStore.js';
import { taskStatusUpdate } from './taskStatusUpdate.js';

/**
 * Handlers that began on rows this instance reserved: Queued → InProgress with the instant the
 * handler began as `started_at` and as its audit time, the run's token and this instance written,
 * the reservation dropped (`reserved_at` kept: when the row was taken, as a rate window counted it), in one statement. A row no longer Queued under this very reservation
 * (cancelled by any process, or taken by another instance after the reservation ran out) is left
 * alone. `retry`: the starts may already have been stored by a commit whose answer was lost; a
 * row that already carries the run's token counts as started.
 */
export async function startRuns(c: PoolClient, starts: readonly StartedRun[], instanceId: string, retry = false): Promise<boolean[]> {
  if (starts.length === 0) return [];
  const { rows } = await c.query<{ id: string }>(
    `WITH begun AS (
       ${taskStatusUpdate({
         writer: 'startRuns', to: 'InProgress', from: ['Queued'],
         set: 'started_at = s.started_at, run_token = s.token, instance_id = $6, reserved_by = NULL',
         using: 'unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[]) AS s(id, reserved_at, started_at, token, audit_level)',
         where: 't.id = s.id AND t.reserved_by = $6 AND t.reserved_at = s.reserved_at',
         returning: 't.id, s.started_at, s.audit_level',
       })}),
     audited AS (
       INSERT INTO status_audit (task_id, updated_at, new_status) SELECT id, started_at, 'InProgress' FROM begun WHERE audit_level = 'Full')
     SELECT id FROM begun`,
    [starts.map((s) => s.id), starts.map((s) => s.reservedAt), starts.map((s) => s.startedAt), starts.map((s) => s.token), starts.map((s) => s.auditLevel), instanceId],
  );
  const ok = new Set(rows.map((r) => r.id));
  const missing = starts.filter((s) => !ok.has(s.id));
  if (retry && missing.length > 0) {
    const { rows: stored } = await c.query<{ id: string }>(
      `SELECT t.id FROM tasks t JOIN unnest($1::text[], $2::text[]) AS s(id, token) ON t.id = s.id AND t.run_token = s.token`,
      [missing.map((s) => s.id), missing.map((s) => s.token)],
    );
    for (const x of stored) ok.add(x.id);
  }
  return starts.map((s) => ok.has(s.id));
}

/** Reserved rows handed back unstarted: the reservation dropped (they stay Queued for any instance). */
export async function releaseReservations(c: PoolClient, rows: readonly Reservation[], instanceId: string): Promise<void> {
  if (rows.length === 0) return;
  await c.query(
    `UPDATE tasks t SET reserved_by = NULL, reserved_at = NULL
       FROM unnest($1::text[], $2::bigint[]) AS r(id, reserved_at)
      WHERE t.id = r.id AND t.status = 'Queued' AND t.reserved_by = $3 AND t.reserved_at = r.reserved_at`,
    [rows.map((r) => r.id), rows.map((r) => r.reservedAt), instanceId],
  );
}
