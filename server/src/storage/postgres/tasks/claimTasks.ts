import type { PoolClient } from 'pg';
import type { ClaimDecider, RunnableTaskRow } from '../../EngineStore.js';
import { DB_NOW_MS } from '../connection/databaseClock.js';

/** The columns of a reserved row handed to the engine, as an UPDATE of `tasks t` returns them. */
export const RETURNING_RUNNABLE = `t.id, t.type, t.handler, t.request, t.queue, t.status, t.task_key, t.audit_level, t.created_at, t.scheduled_at,
  t.attempt, t.retry_policy, t.timeout_ms, t.rate_limit_key, t.is_recurring, t.recurrence, t.run_count, t.parent_task_id, t.abandoned_count, t.traceparent, t.tracestate,
  (SELECT COALESCE(MAX(l.sequence_number), 0) FROM execution_logs l WHERE l.task_id = t.id) AS last_log_sequence, t.reserved_at`;

/**
 * SQL predicate over `tasks` of a claim's candidates (`now`: the commit's instant, `heldSince`: the
 * instant before which a reservation no longer holds, `instance`: the claiming instance, `leaseMs`:
 * the lease): Queued, not throttled, and not reserved, or reserved past its hold by this instance
 * or by one whose lease is not alive (no heartbeat within the lease by the database clock, or no
 * instance row). A live instance's reservation is never taken, however old: its handler may have
 * begun and its start be waiting for writes that keep failing.
 */
export const claimable = (now: string, heldSince: string, instance: string, leaseMs: string) =>
  `status = 'Queued' AND (throttled_until IS NULL OR throttled_until <= ${now}) AND (reserved_by IS NULL OR (reserved_at <= ${heldSince} AND (reserved_by = ${instance}
     OR NOT EXISTS (SELECT 1 FROM engine_instances i WHERE i.id = tasks.reserved_by AND i.heartbeat_at >= ${DB_NOW_MS} - ${leaseMs}))))`;

/** The reservation instant a candidate row carries when it is `instance`'s own (else null): the claim's `reclaimed_from`. */
export const reclaimedFrom = (instance: string) => `CASE WHEN reserved_by = ${instance} THEN reserved_at END`;

/**
 * A claimed row as a claim's UPDATE returns it, with `held_by`: the instance whose reservation it
 * carried before (one that no longer holds: its owner died or never handed it back), or null.
 */
export type ClaimedRow = RunnableTaskRow & { held_by: string | null; seq: number | string };

/**
 * A queue's claim order: oldest created first, ties (one millisecond's dispatches) in insertion
 * order. The claim statements read rows in this order off the claim index, but an UPDATE's
 * RETURNING keeps no order, so the claimed rows are sorted again by it (`seq` comes back as text
 * from a bigint column, as a number from jsonb).
 */
export const CLAIM_ORDER = 'created_at, seq';
export const byClaimOrder = (a: ClaimedRow, b: ClaimedRow): number => a.created_at - b.created_at || Number(a.seq) - Number(b.seq);

/** The SET of a claim's `abandoned_count` (`heldBy`: the row's reservation before, `instance`: this instance's id). */
export const countTakeover = (heldBy: string, instance: string) =>
  `abandoned_count = t.abandoned_count + CASE WHEN ${heldBy} <> ${instance} THEN 1 ELSE 0 END`;

/**
 * Claimed rows split into those to run and those to fail. A row taken over from another
 * instance's reservation counts one abandoned run (its handler may have begun there and killed the
 * process before its start was written), counted by the claim's own UPDATE; a row abandoned more
 * than `maxAbandoned` times is never run but failed (failTakenOverClaims), whoever held it before:
 * should that failing not be written, the row stays reserved here, and when its hold is over this
 * same instance's next claim takes it again (held_by is this instance) and must fail it again.
 */
export function splitTakeovers(rows: readonly ClaimedRow[], maxAbandoned: number): { run: ClaimedRow[]; fail: string[] } {
  const run: ClaimedRow[] = [];
  const fail: string[] = [];
  // A row to run keeps its `held_by` (one field more, not a copy of each row on the hot path).
  for (const row of rows) {
    if (row.abandoned_count > maxAbandoned) fail.push(row.id);
    else run.push(row);
  }
  return { run, fail };
}

/**
 * Reserves up to `limit` of the oldest claimable rows of a queue (types this engine handles) for
 * this instance in one statement: `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED LIMIT n)
 * RETURNING`, so instances claiming at once take different rows. The rows stay Queued, marked
 * `reserved_by`/`reserved_at` (no status move, no audit); they become InProgress when their
 * handler begins. Rows the decider refuses (rate limits) lose the mark again and get their
 * throttle mark in the same transaction. A row taken over from another instance's lapsed
 * reservation counts an abandoned run; past `maxAbandoned` it is returned in `fail` (still
 * reserved by this instance), not run and not shown to the decider.
 */
export async function claimTasks(
  c: PoolClient,
  input: {
    queue: string; limit: number; types: readonly string[]; now: number; reservationMs: number; instanceId: string; maxAbandoned: number; leaseMs: number;
    decide: ClaimDecider | null;
    /** Awaited before `decide` sees a round of candidates (global rate windows are read there). */
    prepare?: (rows: readonly RunnableTaskRow[]) => Promise<void>;
  },
): Promise<{ claimed: RunnableTaskRow[]; fail: string[] }> {
  const claimed: RunnableTaskRow[] = [];
  const fail: string[] = [];
  // Throttled candidates leave the window of the next round, so this terminates.
  for (let round = 0; round < 16 && claimed.length < input.limit; round++) {
    const { rows: taken } = await c.query<ClaimedRow>(
      `UPDATE tasks t SET reserved_by = $2, reserved_at = $1, throttled_until = NULL, ${countTakeover('s.held_by', '$2')}
         FROM (SELECT id, reserved_by AS held_by, ${reclaimedFrom('$2')} AS reclaimed_from FROM tasks
                WHERE queue = $3 AND ${claimable('$1', '$6', '$2', '$7')} AND type = ANY($4::text[])
                ORDER BY ${CLAIM_ORDER} LIMIT $5 FOR UPDATE SKIP LOCKED) AS s
        WHERE t.id = s.id
        RETURNING ${RETURNING_RUNNABLE}, s.reclaimed_from, s.held_by, t.seq`,
      [input.now, input.instanceId, input.queue, input.types, input.limit - claimed.length, input.now - input.reservationMs, input.leaseMs],
    );
    if (taken.length === 0) break;
    const split = splitTakeovers(taken, input.maxAbandoned);
    fail.push(...split.fail);
    const rows = split.run;
    if (rows.length === 0) continue;
    rows.sort(byClaimOrder);
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
  return { claimed, fail };
}
