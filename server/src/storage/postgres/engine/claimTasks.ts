import type { PoolClient } from 'pg';
import type { ClaimDecider, RunnableTaskRow } from '../../EngineStore.js';

/** The columns of a reserved row handed to the engine, as an UPDATE of `tasks t` returns them. */
export const RETURNING_RUNNABLE = `t.id, t.type, t.handler, t.request, t.queue, t.status, t.task_key, t.audit_level, t.created_at, t.scheduled_at,
  t.attempt, t.retry_policy, t.timeout_ms, t.rate_limit_key, t.is_recurring, t.recurrence, t.run_count, t.parent_task_id, t.abandoned_count, t.traceparent, t.tracestate,
  (SELECT COALESCE(MAX(l.sequence_number), 0) FROM execution_logs l WHERE l.task_id = t.id) AS last_log_sequence, t.reserved_at`;

/**
 * SQL predicate of a claim's candidates ($now: the commit's instant, $heldSince: the instant
 * before which a reservation no longer holds): Queued, not throttled, not reserved recently.
 */
export const claimable = (now: string, heldSince: string) =>
  `status = 'Queued' AND (throttled_until IS NULL OR throttled_until <= ${now}) AND (reserved_by IS NULL OR reserved_at <= ${heldSince})`;

/**
 * Reserves up to `limit` of the oldest claimable rows of a queue (types this engine handles) for
 * this instance in one statement: `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED LIMIT n)
 * RETURNING`, so instances claiming at once take different rows. The rows stay Queued, marked
 * `reserved_by`/`reserved_at` (no status move, no audit); they become InProgress when their
 * handler begins. Rows the decider refuses (rate limits) lose the mark again and get their
 * throttle mark in the same transaction.
 */
export async function claimTasks(
  c: PoolClient,
  input: {
    queue: string; limit: number; types: readonly string[]; now: number; reservationMs: number; instanceId: string; decide: ClaimDecider | null;
    /** Awaited before `decide` sees a round of candidates (global rate windows are read there). */
    prepare?: (rows: readonly RunnableTaskRow[]) => Promise<void>;
  },
): Promise<RunnableTaskRow[]> {
  const claimed: RunnableTaskRow[] = [];
  // Throttled candidates leave the window of the next round, so this terminates.
  for (let round = 0; round < 16 && claimed.length < input.limit; round++) {
    const { rows } = await c.query<RunnableTaskRow>(
      `UPDATE tasks t SET reserved_by = $2, reserved_at = $1, throttled_until = NULL
         FROM (SELECT id FROM tasks
                WHERE queue = $3 AND ${claimable('$1', '$6')} AND type = ANY($4::text[])
                ORDER BY created_at LIMIT $5 FOR UPDATE SKIP LOCKED) AS s
        WHERE t.id = s.id
        RETURNING ${RETURNING_RUNNABLE}`,
      [input.now, input.instanceId, input.queue, input.types, input.limit - claimed.length, input.now - input.reservationMs],
    );
    if (rows.length === 0) break;
    rows.sort((a, b) => a.created_at - b.created_at);
    if (input.prepare !== undefined) await input.prepare(rows);
    const throttled: { id: string; until: number }[] = [];
    for (const r of rows) {
      const verdict = input.decide === null ? true : input.decide(r);
      if (verdict === true) claimed.push(r);
      else throttled.push({ id: r.id, until: verdict });
    }
    if (throttled.length > 0) {
      await c.query(
        `UPDATE tasks t SET reserved_by = NULL, reserved_at = NULL, throttled_until = x.until
           FROM unnest($1::text[], $2::bigint[]) AS x(id, until) WHERE t.id = x.id`,
        [throttled.map((x) => x.id), throttled.map((x) => x.until)],
      );
    }
    if (throttled.length === 0) break;
  }
  return claimed;
}
