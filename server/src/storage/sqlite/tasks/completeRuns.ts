import type { Database } from 'better-sqlite3';
import type { FinishedRun } from '../../EngineStore.js';
import type { ClaimedGroups } from './claimedGroups.js';
import { auditAllows } from '../../common/auditAllows.js';
import { insertStatusAudits, type StatusAuditRow } from './insertStatusAudits.js';
import type { ReadModelDeltas, TaskGroup } from '../readModels/readModelDeltas.js';
import { TASK_GROUP_COLUMNS } from '../readModels/TaskGroupColumns.js';
import { checkTransition } from '../../common/statusTransitions.js';
import { UPDATE_TASK_STATUS } from './taskStatusUpdate.js';

export type { FinishedRun };

interface FinishedRow extends TaskGroup {
  exception: string | null;
}

/**
 * Group commit of finished runs: one UPDATE per row (status, last_execution_at, execution_time_ms,
 * last_outcome and run_count together), its status-audit row (those of the batch in one
 * multi-row insert) and, for inline recurring rows, its runs-audit row; the status move and the
 * finished run go into `deltas`. Call inside one transaction. Returns the runs actually
 * recorded (a row no longer InProgress under the run's token is left alone: a stale end).
 *
 * A run whose row this store claimed takes the row's group from `claimed` and ends with a plain
 * UPDATE by rowid; any other run (claimed elsewhere, an inline recurring row going Pending again,
 * a failure without a text), and one whose plain UPDATE found nothing, has the UPDATE by id
 * return the row's group and stored exception.
 */
export function prepareCompleteRuns(
  db: Database,
): (runs: readonly FinishedRun[], deltas: ReadModelDeltas, claimed: ClaimedGroups) => FinishedRun[] {
  // A run that ends its row (or ends in a cancel) leaves scheduled_at and attempt alone: naming a
  // column in SET rewrites every index on it even when the value stays, and scheduled_at has two.
  const endSql = `${UPDATE_TASK_STATUS} SET
      status = ?,
      last_execution_at = ?,
      execution_time_ms = ?,
      last_outcome = COALESCE(?, last_outcome),
      run_count = run_count + ?,
      exception = COALESCE(?, exception)
    WHERE id = ? AND status = 'InProgress' AND run_token = ?`;
  const end = db.prepare(`${endSql} RETURNING ${TASK_GROUP_COLUMNS}, exception`);
  // By the rowid the claim read, the id compared on the row itself: should the rowid have changed
  // since (a VACUUM renumbers rows), nothing matches and the run end falls back to `end`.
  const endKnown = db.prepare(endSql.replace('WHERE id = ?', 'WHERE rowid = ? AND id = ?'));
  // An inline recurring run with a next one: Pending again at its next due time, attempts reset.
  const again = db.prepare(`${UPDATE_TASK_STATUS} SET
      status = 'Pending',
      last_execution_at = ?,
      execution_time_ms = ?,
      last_outcome = COALESCE(?, last_outcome),
      run_count = run_count + ?,
      exception = COALESCE(?, exception),
      scheduled_at = COALESCE(?, scheduled_at),
      attempt = 0
    WHERE id = ? AND status = 'InProgress' AND run_token = ?
    RETURNING ${TASK_GROUP_COLUMNS}, exception`);
  const runAudit = db.prepare(
    'INSERT INTO runs_audit (task_id, executed_at, execution_time_ms, status, exception) VALUES (?, ?, ?, ?, ?)',
  );
  return (runs, deltas, claimed) => {
    const done: FinishedRun[] = [];
    const audits: StatusAuditRow[] = [];
    for (const r of runs) {
      if (!checkTransition('completeTasks', 'InProgress', r.nextStatus, [r.id])) continue;
      const counts = r.outcome !== 'Cancelled';
      const group = claimed.take(r.id);
      let row: FinishedRow | undefined;
      if (group !== undefined && group.rowKey !== null && r.nextStatus !== 'Pending' && (r.outcome !== 'Failed' || r.exception !== null)) {
        // The exception counted below is this run's own (only a failure's text is counted).
        const ended = endKnown.run(
          r.nextStatus, r.endedAt, r.executionTimeMs, counts ? r.outcome : null, counts ? 1 : 0, r.exception, group.rowKey, r.id, r.token,
        );
        if (ended.changes === 1) row = { ...group, exception: r.exception };
      }
      if (row === undefined) {
        row = (r.nextStatus !== 'Pending'
          ? end.get(r.nextStatus, r.endedAt, r.executionTimeMs, counts ? r.outcome : null, counts ? 1 : 0, r.exception, r.id, r.token)
          : again.get(r.endedAt, r.executionTimeMs, counts ? r.outcome : null, counts ? 1 : 0, r.exception, r.nextScheduledAt, r.id, r.token)
        ) as FinishedRow | undefined;
      }
      if (row === undefined) continue;
      deltas.moved(row, 'InProgress', r.nextStatus);
      if (counts) {
        deltas.ran({
          taskId: r.id, type: row.type, queue: row.queue, endedAt: r.endedAt, outcome: r.outcome,
          executionTimeMs: r.executionTimeMs, exception: row.exception,
        });
      }
      if (r.recurring && counts && auditAllows(r.auditLevel, r.outcome === 'Failed' ? r.exception ?? '' : null)) {
        runAudit.run(r.id, r.endedAt, r.executionTimeMs, r.outcome, r.exception);
      }
      if (auditAllows(r.auditLevel, r.exception)) audits.push([r.id, r.endedAt, r.nextStatus, r.exception]);
      done.push(r);
    }
    if (audits.length > 0) insertStatusAudits(db, audits);
    return done;
  };
}
