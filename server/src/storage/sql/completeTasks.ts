import type { Database } from 'better-sqlite3';
import type { FinishedRun } from '../EngineStore.js';
import { auditAllows, type StatusAuditWriter } from './insertStatusAudit.js';

export type { FinishedRun };

/**
 * Group commit of finished runs: one UPDATE per row (status, last_execution_at, execution_time_ms,
 * last_outcome and run_count together, so the run-bucket trigger sees the run), its status-audit
 * row and, for inline recurring rows, its runs-audit row. Call inside one transaction.
 * Returns the runs actually recorded (a row no longer InProgress is left alone).
 */
export function prepareCompleteTasks(db: Database, audit: StatusAuditWriter): (runs: readonly FinishedRun[]) => FinishedRun[] {
  const update = db.prepare(`UPDATE tasks SET
      status = ?,
      last_execution_at = ?,
      execution_time_ms = ?,
      last_outcome = COALESCE(?, last_outcome),
      run_count = run_count + ?,
      exception = COALESCE(?, exception),
      scheduled_at = COALESCE(?, scheduled_at),
      attempt = CASE WHEN ? = 'Pending' THEN 0 ELSE attempt END
    WHERE id = ? AND status = 'InProgress'`);
  const runAudit = db.prepare(
    'INSERT INTO runs_audit (task_id, executed_at, execution_time_ms, status, exception) VALUES (?, ?, ?, ?, ?)',
  );
  return (runs) => {
    const done: FinishedRun[] = [];
    for (const r of runs) {
      const counts = r.outcome !== 'Cancelled';
      const changes = update.run(
        r.nextStatus, r.endedAt, r.executionTimeMs, counts ? r.outcome : null, counts ? 1 : 0, r.exception, r.nextScheduledAt,
        r.nextStatus, r.id,
      ).changes;
      if (changes !== 1) continue;
      if (r.recurring && counts && auditAllows(r.auditLevel, r.outcome === 'Failed' ? r.exception ?? '' : null)) {
        runAudit.run(r.id, r.endedAt, r.executionTimeMs, r.outcome, r.exception);
      }
      audit(r.id, r.auditLevel, r.endedAt, r.nextStatus, r.exception);
      done.push(r);
    }
    return done;
  };
}
