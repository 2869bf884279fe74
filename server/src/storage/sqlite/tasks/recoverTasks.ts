import type { Database } from 'better-sqlite3';
import type { AuditLevel } from '../../../contracts/index.js';
import { abandonedRunError, type AbandonedTask } from '../../common/abandonedRuns.js';
import { type StatusAuditWriter } from './insertStatusAudit.js';
import { auditAllows } from '../../common/auditAllows.js';
import type { ReadModelDeltas, TaskGroup } from '../readModels/readModelDeltas.js';
import { TASK_GROUP_COLUMNS } from '../readModels/TaskGroupColumns.js';
import { priorStatusCondition } from '../../common/statusTransitions.js';

interface RecoveredRow extends TaskGroup {
  id: string;
  audit_level: AuditLevel;
  status: 'InProgress' | 'ServiceStopped' | 'Queued';
  handler: string;
  request: string;
  parent_task_id: string | null;
  abandoned_count: number;
}

export interface RecoverOutcome {
  requeued: number;
  failed: AbandonedTask[];
}

/**
 * Recovery at start: rows left InProgress (a crash) or ServiceStopped (a stop that outlasted its
 * grace period: the run was in flight when its process ended, its outcome unknown) are abandoned
 * runs, counted on the row as PostgreSQL's lease recovery counts them, → Queued; delivery is at
 * least once. (A clean stop's reserved rows were handed back Queued: never begun, not counted.) A Queued row still reserved (by an engine of an earlier life: a stop hands every
 * reservation back) may have had its handler begin before the crash with its start not yet
 * written, so it counts as an abandoned run too and loses the reservation. A row abandoned more
 * than `maxAbandoned` times ends Failed instead, as a failed run (its audit, run and failure read
 * models). Throttle marks of Queued rows are dropped (budgets live in memory). Other Queued and
 * WaitingQueue rows need no move: the dispatcher claims and admits them. Compact occurrences
 * (migration 15) are Pending, never begun: nothing here concerns them.
 */
export function prepareRecoverTasks(
  db: Database,
  audit: StatusAuditWriter,
): (now: number, maxAbandoned: number, deltas: ReadModelDeltas) => RecoverOutcome {
  const select = db.prepare(`SELECT id, audit_level, status, handler, request, parent_task_id, abandoned_count, ${TASK_GROUP_COLUMNS}
    FROM tasks WHERE status IN ('InProgress', 'ServiceStopped') OR (status = 'Queued' AND reserved_by IS NOT NULL)`);
  const requeue = db.prepare(`UPDATE tasks SET status = 'Queued', abandoned_count = abandoned_count + 1
    WHERE id = ? AND ${priorStatusCondition('recoverTasks', 'status', 'Queued', ['InProgress', 'ServiceStopped'])}`);
  const unreserve = db.prepare(`UPDATE tasks SET abandoned_count = abandoned_count + 1, reserved_by = NULL, reserved_at = NULL
    WHERE id = ? AND status = 'Queued' AND reserved_by IS NOT NULL`);
  const fail = db.prepare(`UPDATE tasks SET status = 'Failed', abandoned_count = abandoned_count + 1, last_execution_at = ?,
      execution_time_ms = 0, last_outcome = 'Failed', run_count = run_count + 1, exception = ?, reserved_by = NULL, reserved_at = NULL
    WHERE id = ? AND status = ? AND ${priorStatusCondition('recoverTasks', 'status', 'Failed', ['InProgress', 'ServiceStopped', 'Queued'])}`);
  const runAudit = db.prepare(`INSERT INTO runs_audit (task_id, executed_at, execution_time_ms, status, exception) VALUES (?, ?, 0, 'Failed', ?)`);
  const unthrottle = db.prepare(`UPDATE tasks SET throttled_until = NULL WHERE throttled_until IS NOT NULL AND status = 'Queued'`);
  return (now, maxAbandoned, deltas) => {
    const rows = select.all() as RecoveredRow[];
    const failed: AbandonedTask[] = [];
    let requeued = 0;
    for (const r of rows) {
      const abandoned = r.abandoned_count + 1;
      if (abandoned > maxAbandoned) {
        const exception = abandonedRunError(abandoned);
        if (fail.run(now, exception, r.id, r.status).changes !== 1) continue;
        audit(r.id, r.audit_level, now, 'Failed', exception);
        deltas.moved(r, r.status, 'Failed');
        deltas.ran({ taskId: r.id, type: r.type, queue: r.queue, endedAt: now, outcome: 'Failed', executionTimeMs: 0, exception });
        if (r.is_recurring === 1 && auditAllows(r.audit_level, exception)) runAudit.run(r.id, now, exception);
        failed.push({ id: r.id, type: r.type, handler: r.handler, request: r.request, queue: r.queue, parent_task_id: r.parent_task_id, exception, failedAt: now });
        continue;
      }
      if (r.status === 'Queued') {
        // Stays Queued (no move, no audit), now claimable by any engine.
        if (unreserve.run(r.id).changes === 1) requeued++;
        continue;
      }
      if (requeue.run(r.id).changes === 1) {
        audit(r.id, r.audit_level, now, 'Queued');
        deltas.moved(r, r.status, 'Queued');
        requeued++;
      }
    }
    unthrottle.run();
    return { requeued, failed };
  };
}
