import { createHash } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { CommitBatch, CommitOutcome, FinishedRun, StartedRun } from '../../EngineStore.js';
import { auditAllows } from '../../common/auditAllows.js';
import { checkTransition } from '../../common/statusTransitions.js';
import { DELTAS_WRITTEN_SETTING } from '../migrations/005_updateTriggersStepAside.js';
import { SqlParams } from './SqlParams.js';
import type { Counter } from '../../common/readModels/counters.js';
import { FAILED_CTE, deltaInsertCtes } from '../readModels/readModelDeltas.js';
import { byClaimOrder, CLAIM_ORDER, claimable, countTakeover, reclaimedFrom, splitTakeovers, type ClaimedRow } from './claimTasks.js';

/** The columns of a claimed row (ClaimedRow: the row handed to the engine, and whose reservation it carried before). */
const CLAIMED_COLUMNS = `id, type, handler, request, queue, status, task_key, audit_level, created_at, scheduled_at,
  attempt, retry_policy, timeout_ms, rate_limit_key, is_recurring, recurrence, run_count, parent_task_id, abandoned_count, traceparent, tracestate, last_log_sequence, reserved_at,
  reclaimed_from, held_by, seq`;
/** The same, as the UPDATE returns them (the last log sequence read for claimed rows only). */
const RETURNING_CLAIMED = `t.id, t.type, t.handler, t.request, t.queue, t.status, t.task_key, t.audit_level, t.created_at, t.scheduled_at,
  t.attempt, t.retry_policy, t.timeout_ms, t.rate_limit_key, t.is_recurring, t.recurrence, t.run_count, t.parent_task_id, t.abandoned_count, t.traceparent, t.tracestate,
  CASE WHEN r.claim THEN (SELECT COALESCE(MAX(l.sequence_number), 0) FROM execution_logs l WHERE l.task_id = t.id) END AS last_log_sequence,
  t.reserved_at, r.reclaimed_from, r.held_by, t.seq`;

/** The parts of an outcome a fast commit never has (it inserts, cancels, stops and promotes nothing). */
const noOtherChanges = (): Pick<CommitOutcome, 'logIds' | 'inserted' | 'cancelled' | 'attemptsRecorded' | 'stopped' | 'promoted'> => ({
  logIds: [], inserted: [], cancelled: [], attemptsRecorded: [], stopped: [], promoted: 0,
});

/** A run end that counts as a run (a cancel does not). */
const counts = (r: FinishedRun) => r.outcome !== 'Cancelled';
/** A run end that writes a runs-audit row: a counted run of an inline recurring row, as its audit level allows. */
const runAudited = (r: FinishedRun) =>
  r.recurring && counts(r) && auditAllows(r.auditLevel, r.outcome === 'Failed' ? (r.exception ?? '') : null);

/**
 * Whether a batch is the steady state of a busy worker: runs started and ended and new claims,
 * nothing else (no new tasks, logs, cancels, retries or their rate-window starts, stops or hand-backs; no capped queue, no
 * promotion, no rate limit).
 */
export function isFastCommit(b: CommitBatch): boolean {
  const d = b.dispatching;
  return (
    b.logs.length === 0 && b.insertTasks.length === 0 && b.cancels.length === 0 && b.attemptFailures.length === 0 &&
    b.serviceStopped.length === 0 && (b.releases ?? []).length === 0 && (b.retryStarts ?? []).length === 0 && [...b.capacities.values()].every((c) => c === Infinity) &&
    (d === null || (d.promoteLimit === 0 && (d as { decide: unknown }).decide === null))
  );
}

/** One row this commit starts and/or ends (a short run's start and end may share a commit). */
interface RunChange {
  id: string;
  start: StartedRun | undefined;
  end: FinishedRun | undefined;
}

/**
 * The steady-state group commit as ONE statement (its own transaction, no BEGIN/COMMIT round
 * trips): run starts, run ends and reservations per queue in one UPDATE of `tasks`, their
 * status-audit rows in one INSERT, the runs-audit rows, the read-model deltas (the UPDATE
 * triggers step aside for this statement), the wake NOTIFY when an inline recurring row became
 * Pending, and synchronous_commit off for this transaction unless asked otherwise (no task is
 * stored by it). The server's work per commit is mostly per part of the statement (each part
 * opens its table and indexes), so a batch's statement holds only the parts it can need.
 *
 * A start applies only to a row still Queued under this instance's very reservation; an end only
 * to a row InProgress under the run's token (a row recovered and started again since is left
 * alone). A row started and ended here moves Queued → its end status directly. A reservation
 * taken over from another instance counts an abandoned run; past `maxAbandoned` the row is
 * returned in `abandonedClaims` (reserved by this instance, not run) for the store to fail.
 */
export async function fastCommit(
  c: Pick<PoolClient, 'query'>,
  b: CommitBatch,
  ctx: {
    instanceId: string; wakeChannel: string; wakeOrigin: string; asyncCommit: boolean; maxAbandoned: number;
    /** The lease: a reservation past its hold is taken only from an instance not alive within it. */
    leaseMs: number;
    /** The counters whose deltas it appends: the description's (COUNTERS) unless given, as the triggers installed. */
    counters?: readonly Counter[];
  },
): Promise<CommitOutcome & { abandonedClaims: string[] }> {
  const p = new SqlParams();
  const runs = b.completeRuns;
  const starts = b.startRuns ?? [];
  const byId = new Map<string, RunChange>();
  for (const s of starts) byId.set(s.id, { id: s.id, start: s, end: undefined });
  for (const r of runs) {
    // A run end the transition table refuses is reported and not written (finished: false).
    if (!checkTransition('fastCommit', 'InProgress', r.nextStatus, [r.id])) continue;
    const change = byId.get(r.id);
    if (change !== undefined && change.start?.token === r.token) change.end = r;
    else byId.set(r.id, { id: r.id, start: undefined, end: r });
  }
  const changes = [...byId.values()];
  const ctes: string[] = [];
  /** SELECTs of status-audit rows (task_id, updated_at, new_status, exception), written by one INSERT. */
  const audits: string[] = [];
  const selects: string[] = [];
  /**
   * The rows this commit changes, as the one UPDATE of `tasks` reads them: run starts and ends
   * (claim false) and the rows each queue reserves (claim true). One UPDATE opens the table and
   * its indexes once.
   */
  const sources: string[] = [];
  const d = b.dispatching;
  const claiming = d !== null && d.types.length > 0 && d.claims.some((cl) => cl.limit > 0);
  // Parameters are added only for parts that are there: PostgreSQL refuses a statement with an
  // unused parameter whose type it cannot infer.
  const instance = claiming || starts.length > 0 ? p.add(ctx.instanceId) : '';
  if (changes.length > 0) {
    const e = (f: (r: FinishedRun) => unknown) => changes.map((ch) => (ch.end === undefined ? null : f(ch.end)));
    sources.push(`SELECT false AS claim, u.*, NULL::text AS held_by, NULL::bigint AS reclaimed_from FROM unnest(${p.add(changes.map((ch) => ch.id))}::text[],
                    ${p.add(changes.map((ch) => ch.start !== undefined))}::bool[], ${p.add(changes.map((ch) => ch.end !== undefined))}::bool[],
                    ${p.add(changes.map((ch) => ch.start?.reservedAt ?? null))}::bigint[], ${p.add(changes.map((ch) => ch.start?.startedAt ?? null))}::bigint[],
                    ${p.add(changes.map((ch) => (ch.start ?? ch.end)!.token))}::text[],
                    ${p.add(changes.map((ch) => ch.start !== undefined && auditAllows(ch.start.auditLevel, null)))}::bool[],
                    ${p.add(e((r) => r.nextStatus))}::text[],
                    ${p.add(e((r) => r.endedAt))}::bigint[], ${p.add(e((r) => r.executionTimeMs))}::float8[],
                    ${p.add(e((r) => (counts(r) ? r.outcome : null)))}::text[], ${p.add(changes.map((ch) => (ch.end !== undefined && counts(ch.end) ? 1 : 0)))}::int[],
                    ${p.add(e((r) => r.exception))}::text[], ${p.add(e((r) => r.nextScheduledAt))}::bigint[],
                    ${p.add(changes.map((ch) => ch.end !== undefined && auditAllows(ch.end.auditLevel, ch.end.exception)))}::bool[],
                    ${p.add(changes.map((ch) => ch.end !== undefined && runAudited(ch.end)))}::bool[],
                    ${p.add(e((r) => r.outcome))}::text[])
             AS u(id, starts, ends, reserved_at, started_at, token, start_audited, next_status, ended_at, ms, outcome, counts, exception, next_at,
                  audited, run_audited, run_outcome)`);
  }
  const now = claiming ? p.add(b.now) : '';
  if (claiming) {
    const types = p.add(d.types);
    const heldSince = p.add(b.now - d.reservationMs);
    const leaseMs = p.add(ctx.leaseMs);
    // A row started by this commit is not reserved again by it.
    const notStarting = starts.length > 0 ? `AND NOT (id = ANY(${p.add(starts.map((s) => s.id))}::text[]))` : '';
    d.claims.forEach((cl, k) => {
      if (cl.limit <= 0) return;
      // The oldest claimable rows of the queue, locked; rows another instance holds are skipped.
      // Each with the reservation it carries: whose (held_by), and its instant when it is this instance's (reclaimed_from).
      ctes.push(`pick${k} AS (SELECT id, reserved_by, ${reclaimedFrom(`${instance}::text`)} AS reclaimed_from FROM tasks
                 WHERE queue = ${p.add(cl.queue)} AND ${claimable(`${now}::bigint`, `${heldSince}::bigint`, `${instance}::text`, `${leaseMs}::bigint`)}
                   AND type = ANY(${types}::text[]) ${notStarting}
                 ORDER BY ${CLAIM_ORDER} LIMIT ${p.add(cl.limit)} FOR UPDATE SKIP LOCKED)`);
      sources.push(`SELECT true, id, false, false, NULL::bigint, NULL::bigint, NULL::text, false, NULL::text, NULL::bigint, NULL::float8, NULL::text, 0,
                           NULL::text, NULL::bigint, false, false, NULL::text, reserved_by, reclaimed_from FROM pick${k}`);
    });
  }
  // No claim asks for rows and no run change is left (each end refused by the transition table):
  // nothing to write, and no statement (an UPDATE over no source rows is not valid SQL).
  if (sources.length === 0) return { ...noOtherChanges(), started: [], finished: runs.map(() => false), claimed: [], abandonedClaims: [] };
  const startGuard = starts.length > 0 ? `(r.starts AND t.status = 'Queued' AND t.reserved_by = ${instance}::text AND t.reserved_at = r.reserved_at)` : 'false';
  ctes.push(`changed AS (
      UPDATE tasks t SET status = CASE WHEN r.ends THEN r.next_status WHEN r.starts THEN 'InProgress' ELSE t.status END,
             last_execution_at = COALESCE(r.ended_at, t.last_execution_at), execution_time_ms = COALESCE(r.ms, t.execution_time_ms),
             last_outcome = COALESCE(r.outcome, t.last_outcome), run_count = t.run_count + r.counts,
             exception = COALESCE(r.exception, t.exception), scheduled_at = COALESCE(r.next_at, t.scheduled_at),
             attempt = CASE WHEN r.next_status = 'Pending' THEN 0 ELSE t.attempt END,
             started_at = CASE WHEN r.starts THEN r.started_at ELSE t.started_at END,
             run_token = CASE WHEN r.starts THEN r.token ELSE t.run_token END,
             reserved_by = CASE WHEN r.claim THEN ${claiming ? `${instance}::text` : 'NULL'} WHEN r.starts THEN NULL ELSE t.reserved_by END,
             reserved_at = CASE WHEN r.claim THEN ${claiming ? `${now}::bigint` : 'NULL'} ELSE t.reserved_at END,
             throttled_until = CASE WHEN r.claim THEN NULL ELSE t.throttled_until END,
             instance_id = CASE WHEN r.ends THEN NULL WHEN r.starts THEN ${starts.length > 0 ? `${instance}::text` : 'NULL'} ELSE t.instance_id END
             ${claiming ? `, ${countTakeover('r.held_by', `${instance}::text`)}` : ''}
        FROM (${sources.join(' UNION ALL ')})
             AS r(claim, id, starts, ends, reserved_at, started_at, token, start_audited, next_status, ended_at, ms, outcome, counts, exception, next_at,
                  audited, run_audited, run_outcome, held_by, reclaimed_from)
       WHERE t.id = r.id AND (r.claim OR ${startGuard} OR (NOT r.starts AND t.status = 'InProgress' AND t.run_token = r.token))
       RETURNING r.claim, r.starts, r.ends, r.started_at AS began_at, r.start_audited, ${RETURNING_CLAIMED},
                 r.next_status, r.ended_at, r.ms, r.exception, r.audited, r.run_audited, r.run_outcome, r.counts,
                 (t.parent_task_id IS NOT NULL)::int AS is_occurrence, t.last_execution_at, t.last_outcome, t.execution_time_ms,
                 t.exception AS last_exception)`);
  const moved: string[] = [];
  if (starts.length > 0) {
    ctes.push(`begun AS MATERIALIZED (SELECT * FROM changed WHERE starts)`);
    audits.push(`SELECT id, began_at, 'InProgress', NULL FROM begun WHERE start_audited`);
    selects.push(`SELECT 'started' AS kind, to_jsonb(begun.id) AS row FROM begun`);
    moved.push('begun');
  }
  if (runs.length > 0) {
    ctes.push(`done AS MATERIALIZED (SELECT * FROM changed WHERE ends)`);
    audits.push(`SELECT id, ended_at, next_status, exception FROM done WHERE audited`);
    // Parts a batch cannot need are left out of its statement (each part left in opens its table and indexes on every commit).
    if (runs.some(runAudited)) {
      ctes.push(`done_runs AS (INSERT INTO runs_audit (task_id, executed_at, execution_time_ms, status, exception)
      SELECT id, ended_at, ms, run_outcome, exception FROM done WHERE run_audited)`);
    }
    selects.push(`SELECT 'done' AS kind, to_jsonb(done.id) AS row FROM done`);
    if (runs.some((r) => r.nextStatus === 'Pending')) {
      ctes.push(`woken AS (SELECT pg_notify(${p.add(ctx.wakeChannel)}, ${p.add(ctx.wakeOrigin)}) FROM (SELECT 1 FROM done WHERE next_status = 'Pending' LIMIT 1) AS w)`);
      selects.push(`SELECT 'wake' AS kind, NULL::jsonb AS row FROM woken`);
    }
  }
  if (claiming) {
    ctes.push(`claimed AS MATERIALIZED (SELECT ${CLAIMED_COLUMNS} FROM changed WHERE claim)`);
    selects.push(`SELECT 'claimed' AS kind, to_jsonb(claimed) AS row FROM claimed`);
  }
  if (audits.length > 0) {
    ctes.push(`audits AS (INSERT INTO status_audit (task_id, updated_at, new_status, exception)
      ${audits.join('\n      UNION ALL ')})`);
  }
  ctes.push(...readModelDeltas(starts.length > 0, runs.length > 0, runs.some(counts), runs.some((r) => counts(r) && r.outcome === 'Failed'), ctx.counters));
  // The UPDATE triggers step aside (this statement appended the deltas above); transaction-local settings.
  ctes.push(`sync AS (SELECT set_config('synchronous_commit', ${p.add(ctx.asyncCommit ? 'off' : 'on')}, true)
                        || set_config('${DELTAS_WRITTEN_SETTING}', 'on', true) AS v)`);
  selects.push(`SELECT 'sync' AS kind, to_jsonb(v) AS row FROM sync`);
  const text = `WITH ${ctes.join(',\n')}\n${selects.join('\nUNION ALL ')}`;
  // A named (prepared) statement: each connection parses and plans each shape of the commit once.
  const { rows } = await c.query<{ kind: string; row: unknown }>({ name: statementName(text), text, values: p.values });
  const doneIds = new Set<string>();
  const startedIds = new Set<string>();
  const taken: ClaimedRow[] = [];
  for (const r of rows) {
    if (r.kind === 'done') doneIds.add(r.row as string);
    else if (r.kind === 'started') startedIds.add(r.row as string);
    else if (r.kind === 'claimed') taken.push(r.row as ClaimedRow);
  }
  const { run: claimed, fail: abandonedClaims } = splitTakeovers(taken, ctx.maxAbandoned);
  // Oldest first per queue, queues in the order asked.
  const order = new Map((d?.claims ?? []).map((cl, i) => [cl.queue, i]));
  claimed.sort((x, y) => (order.get(x.queue) ?? 0) - (order.get(y.queue) ?? 0) || byClaimOrder(x, y));
  return {
    ...noOtherChanges(),
    started: starts.map((s) => startedIds.has(s.id)),
    finished: runs.map((r) => doneIds.has(r.id)),
    claimed,
    abandonedClaims,
  };
}

/**
 * The read-model deltas of a fast commit, built from the description the UPDATE triggers are
 * generated from (`common/readModels/counters.ts`): task counters
 * (a start moves Queued → InProgress, a run end InProgress → its status; old side negative, new
 * side positive, netted per group; a reservation moves nothing), and for each finished run
 * (run_count went up) its run bucket, failure group and queue throughput. The columns read are
 * the rows' values after the update.
 */
function readModelDeltas(hasStarts: boolean, hasRuns: boolean, mayRun: boolean, mayFail: boolean, counters?: readonly Counter[]): string[] {
  const moves: string[] = [];
  if (hasStarts) {
    moves.push(`SELECT queue, type, 'Queued'::text AS status, is_recurring, is_occurrence, created_at, -1 AS n FROM begun`);
    moves.push(`SELECT queue, type, 'InProgress'::text, is_recurring, is_occurrence, created_at, 1 FROM begun`);
  }
  if (hasRuns) {
    moves.push(`SELECT queue, type, 'InProgress'::text AS status, is_recurring, is_occurrence, created_at, -1 AS n FROM done`);
    moves.push(`SELECT queue, type, next_status, is_recurring, is_occurrence, created_at, 1 FROM done`);
  }
  if (moves.length === 0) return [];
  const ctes = [`moves (queue, type, status, is_recurring, is_occurrence, created_at, n) AS MATERIALIZED (${moves.join(' UNION ALL ')})`];
  // Run buckets and throughput only when a run may have counted (not every end was a cancel), failure groups only when one may have failed.
  if (!hasRuns || !mayRun) return [...ctes, ...deltaInsertCtes(['moves'], counters)];
  return [
    ...ctes,
    `ran AS MATERIALIZED (SELECT id, type, queue, last_execution_at, last_outcome, execution_time_ms, last_exception AS exception
       FROM done WHERE counts = 1 AND last_execution_at IS NOT NULL)`,
    ...(mayFail ? [FAILED_CTE] : []),
    ...deltaInsertCtes(mayFail ? ['moves', 'ran', 'failed'] : ['moves', 'ran'], counters),
  ];
}

const names = new Map<string, string>();
/** A prepared statement's name for a text (the same text, the same name on every connection). */
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `svc_fast_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    if (names.size < 1000) names.set(text, name);
  }
  return name;
}
