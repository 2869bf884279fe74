import type { Database } from 'better-sqlite3';
import type { FinishedRun, StartedRun } from '../../EngineStore.js';
import type { ClaimedGroups } from './claimedGroups.js';
import { auditAllows } from '../../common/auditAllows.js';
import { insertStatusAudits, type StatusAuditRow } from './insertStatusAudits.js';
import type { ReadModelDeltas } from '../readModels/readModelDeltas.js';
import { checkTwoStepWrite, priorStatusCondition } from '../../common/statusTransitions.js';
import { UPDATE_TASK_STATUS } from './taskStatusUpdate.js';

/** A run whose start and end ride the same commit. */
export interface WholeRun {
  start: StartedRun;
  end: FinishedRun;
}

/**
 * Whether a run's end can be written together with its start: an end that closes the row
 * (Completed, Failed with its own error text, Cancelled) of a run that is not an inline recurring
 * one. The rest (a recurring row going Pending again, a failure whose text is an earlier attempt's)
 * takes the two writes of its own.
 */
export function endsWithItsStart(end: FinishedRun): boolean {
  return !end.recurring && end.nextStatus !== 'Pending' && (end.outcome !== 'Failed' || end.exception !== null);
}

/**
 * Runs whose handler began and settled between two commits, each written as one change of its row:
 * the reserved Queued row goes through InProgress to its end in one UPDATE (the start's columns
 * and the end's together), with both audit rows (InProgress at the instant the handler began, then
 * the end) and both status moves in the read models. It costs one row write and one change of the
 * status indexes instead of two. Only a row this store reserved and whose rowid the claim read is
 * written this way, fenced like a start (still Queued under this very reservation); a run it does
 * not write (returned false) is written as a start and an end apart, which find the row's exact
 * state themselves. Call inside the writer's transaction.
 */
export function prepareStartAndEndRuns(
  db: Database,
  instanceId: string,
): (runs: readonly WholeRun[], deltas: ReadModelDeltas, claimed: ClaimedGroups) => boolean[] {
  const guard = `${priorStatusCondition('startAndEndRuns', 'status', 'InProgress', ['Queued'])} AND reserved_by = ? AND reserved_at = ?`;
  // The start's columns (as startRuns writes them) and the end's (as completeTasks does).
  const startAndEnd = db.prepare(`${UPDATE_TASK_STATUS} SET
      status = ?,
      started_at = ?,
      run_token = ?,
      reserved_by = NULL,
      last_execution_at = ?,
      execution_time_ms = ?,
      last_outcome = COALESCE(?, last_outcome),
      run_count = run_count + ?,
      exception = COALESCE(?, exception)
    WHERE rowid = ? AND id = ? AND ${guard}`);
  return (runs, deltas, claimed) => {
    const audits: StatusAuditRow[] = [];
    const out = runs.map(({ start: s, end: r }) => {
      const group = claimed.peek(s.id);
      if (group === undefined || group.rowKey === null || !checkTwoStepWrite('startAndEndRuns', 'Queued', 'InProgress', r.nextStatus, [r.id])) return false;
      const counts = r.outcome !== 'Cancelled';
      const written = startAndEnd.run(
        r.nextStatus, s.startedAt, s.token, r.endedAt, r.executionTimeMs, counts ? r.outcome : null, counts ? 1 : 0, r.exception,
        group.rowKey, s.id, instanceId, s.reservedAt,
      ).changes === 1;
      if (!written) return false;
      claimed.forget(s.id);
      deltas.movedThrough(group, 'Queued', 'InProgress', r.nextStatus);
      if (counts) {
        deltas.ran({
          taskId: r.id, type: group.type, queue: group.queue, endedAt: r.endedAt, outcome: r.outcome, executionTimeMs: r.executionTimeMs, exception: r.exception,
        });
      }
      if (auditAllows(s.auditLevel, null)) audits.push([s.id, s.startedAt, 'InProgress', null]);
      if (auditAllows(r.auditLevel, r.exception)) audits.push([r.id, r.endedAt, r.nextStatus, r.exception]);
      return true;
    });
    if (audits.length > 0) insertStatusAudits(db, audits);
    return out;
  };
}
