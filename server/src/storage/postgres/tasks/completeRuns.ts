import type { PoolClient } from 'pg';
import type { FinishedRun } from '../../EngineStore.js';
import { auditAllows } from '../../common/auditAllows.js';
import { checkTransition } from '../../common/statusTransitions.js';
import { taskStatusUpdate } from './taskStatusUpdate.js';

/**
 * Ends of runs on rows InProgress under the run's token (a row recovered and started again since
 * is left alone: a stale end), all in one UPDATE (status, end, duration, outcome and
 * run_count together, so the run-bucket trigger sees each run), then their runs-audit rows
 * (inline recurring rows) and status-audit rows. A row no longer InProgress is left alone.
 * `retry`: the ends may already have been stored by a commit whose answer was lost; a row that
 * already shows this very end (status and end instant) counts as finished, written once.
 */
/** Every status a run end can write (FinishedRun.nextStatus). */
const RUN_END_STATUSES = ['Completed', 'Failed', 'Cancelled', 'Pending'] as const satisfies readonly FinishedRun['nextStatus'][];

export async function completeRuns(c: PoolClient, runs: readonly FinishedRun[], retry = false): Promise<boolean[]> {
  if (runs.length === 0) return [];
  const counts = (r: FinishedRun) => r.outcome !== 'Cancelled';
  // A run whose end status the transition table refuses is reported and not written (false).
  const ending = runs.filter((r) => checkTransition('completeRuns', 'InProgress', r.nextStatus, [r.id]));
  // One statement: the UPDATE and the status-audit rows of the changes it made (audit level rule in SQL).
  const { rows } = await c.query<{ id: string }>(
    `WITH done AS (
       ${taskStatusUpdate({
         writer: 'completeRuns', to: { expr: 'r.next_status', statuses: RUN_END_STATUSES }, from: ['InProgress'],
         set: `last_execution_at = r.ended_at, execution_time_ms = r.ms,
              last_outcome = COALESCE(r.outcome, t.last_outcome), run_count = t.run_count + r.counts,
              exception = COALESCE(r.exception, t.exception), scheduled_at = COALESCE(r.next_at, t.scheduled_at),
              attempt = CASE WHEN r.next_status = 'Pending' THEN 0 ELSE t.attempt END, instance_id = NULL`,
         using: `unnest($1::text[], $2::text[], $3::bigint[], $4::float8[], $5::text[], $6::int[], $7::text[], $8::bigint[], $9::text[], $10::text[])
              AS r(id, next_status, ended_at, ms, outcome, counts, exception, next_at, audit_level, token)`,
         where: 't.id = r.id AND t.run_token = r.token',
         returning: 't.id, r.next_status, r.ended_at, r.exception, r.audit_level',
       })}),
     audited AS (
       INSERT INTO status_audit (task_id, updated_at, new_status, exception)
       SELECT id, ended_at, next_status, exception FROM done
        WHERE audit_level = 'Full' OR (audit_level = 'ErrorsOnly' AND exception IS NOT NULL))
     SELECT id FROM done`,
    [
      ending.map((r) => r.id), ending.map((r) => r.nextStatus), ending.map((r) => r.endedAt), ending.map((r) => r.executionTimeMs),
      ending.map((r) => (counts(r) ? r.outcome : null)), ending.map((r) => (counts(r) ? 1 : 0)), ending.map((r) => r.exception),
      ending.map((r) => r.nextScheduledAt), ending.map((r) => r.auditLevel), ending.map((r) => r.token),
    ],
  );
  const ok = new Set(rows.map((r) => r.id));
  const done = runs.filter((r) => ok.has(r.id));
  const missing = runs.filter((r) => !ok.has(r.id));
  const already = new Set<string>();
  if (retry && missing.length > 0) {
    const { rows: stored } = await c.query<{ id: string }>(
      `SELECT t.id FROM tasks t JOIN unnest($1::text[], $2::text[], $3::bigint[], $4::text[]) AS r(id, next_status, ended_at, token)
          ON t.id = r.id AND t.status = r.next_status AND t.last_execution_at = r.ended_at AND t.run_token = r.token`,
      [missing.map((r) => r.id), missing.map((r) => r.nextStatus), missing.map((r) => r.endedAt), missing.map((r) => r.token)],
    );
    for (const x of stored) already.add(x.id);
  }
  const runAudits = done.filter((r) => r.recurring && counts(r) && auditAllows(r.auditLevel, r.outcome === 'Failed' ? (r.exception ?? '') : null));
  if (runAudits.length > 0) {
    await c.query(
      `INSERT INTO runs_audit (task_id, executed_at, execution_time_ms, status, exception)
       SELECT * FROM unnest($1::text[], $2::bigint[], $3::float8[], $4::text[], $5::text[])`,
      [runAudits.map((r) => r.id), runAudits.map((r) => r.endedAt), runAudits.map((r) => r.executionTimeMs), runAudits.map((r) => r.outcome), runAudits.map((r) => r.exception)],
    );
  }
  return runs.map((r) => ok.has(r.id) || already.has(r.id));
}
