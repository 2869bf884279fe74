import type { PoolClient } from 'pg';
import type { ClaimDecider, RunnableTaskRow } from '../../EngineStore.js';

const RETURNING = `t.id, t.type, t.handler, t.request, t.queue, t.status, t.task_key, t.audit_level, t.created_at, t.scheduled_at,
  t.attempt, t.retry_policy, t.timeout_ms, t.rate_limit_key, t.is_recurring, t.recurrence, t.run_count, t.parent_task_id, t.abandoned_count, t.traceparent, t.tracestate,
  (SELECT COALESCE(MAX(l.sequence_number), 0) FROM execution_logs l WHERE l.task_id = t.id) AS last_log_sequence`;

/**
 * Queued → InProgress for up to `limit` of the oldest claimable rows of a queue (types this
 * engine handles, not throttled), in one statement: `UPDATE … WHERE id IN (SELECT … FOR UPDATE
 * SKIP LOCKED LIMIT n) RETURNING`, so instances claiming at once take different rows. Each row
 * carries this instance's id (lease recovery). Rows the decider refuses (rate limits) go back to
 * Queued with their throttle mark in the same transaction.
 */
export async function claimTasks(
  c: PoolClient,
  input: {
    queue: string; limit: number; types: readonly string[]; now: number; instanceId: string; decide: ClaimDecider | null;
    /** Awaited before `decide` sees a round of candidates (global rate windows are read there). */
    prepare?: (rows: readonly RunnableTaskRow[]) => Promise<void>;
  },
): Promise<RunnableTaskRow[]> {
  const claimed: RunnableTaskRow[] = [];
  // Throttled candidates leave the window of the next round, so this terminates.
  for (let round = 0; round < 16 && claimed.length < input.limit; round++) {
    // The InProgress audit rows are written by the same statement; a row the decider refuses
    // (rare: rate limits) has its audit row removed again below.
    const { rows } = await c.query<RunnableTaskRow & { prev_started_at: number | null; audit_id: number | null }>(
      `WITH claimed AS (
         UPDATE tasks t SET status = 'InProgress', started_at = $1, throttled_until = NULL, instance_id = $2
           FROM (SELECT id, started_at AS prev_started_at FROM tasks
                  WHERE queue = $3 AND status = 'Queued' AND (throttled_until IS NULL OR throttled_until <= $1)
                    AND type = ANY($4::text[])
                  ORDER BY created_at LIMIT $5 FOR UPDATE SKIP LOCKED) AS s
          WHERE t.id = s.id
          RETURNING ${RETURNING}, s.prev_started_at),
       audited AS (
         INSERT INTO status_audit (task_id, updated_at, new_status)
         SELECT id, $1, 'InProgress' FROM claimed WHERE audit_level = 'Full' RETURNING id AS audit_id, task_id)
       SELECT claimed.*, audited.audit_id FROM claimed LEFT JOIN audited ON audited.task_id = claimed.id`,
      [input.now, input.instanceId, input.queue, input.types, input.limit - claimed.length],
    );
    if (rows.length === 0) break;
    rows.sort((a, b) => a.created_at - b.created_at);
    if (input.prepare !== undefined) await input.prepare(rows);
    const throttled: { id: string; until: number; started: number | null; auditId: number | null }[] = [];
    const fresh: RunnableTaskRow[] = [];
    for (const { prev_started_at, audit_id, ...r } of rows) {
      const verdict = input.decide === null ? true : input.decide(r);
      if (verdict === true) fresh.push(r);
      else throttled.push({ id: r.id, until: verdict, started: prev_started_at, auditId: audit_id });
    }
    if (throttled.length > 0) {
      await c.query(
        `UPDATE tasks t SET status = 'Queued', started_at = x.started, instance_id = NULL, throttled_until = x.until
           FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS x(id, until, started) WHERE t.id = x.id`,
        [throttled.map((x) => x.id), throttled.map((x) => x.until), throttled.map((x) => x.started)],
      );
      const audits = throttled.map((x) => x.auditId).filter((x): x is number => x !== null);
      if (audits.length > 0) await c.query(`DELETE FROM status_audit WHERE id = ANY($1::bigint[])`, [audits]);
    }
    claimed.push(...fresh);
    if (throttled.length === 0) break;
  }
  return claimed;
}
