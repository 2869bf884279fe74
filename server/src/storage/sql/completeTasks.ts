import type { Database } from 'better-sqlite3';
import type { AuditLevel } from '../../contracts/index.js';
import { auditAllows, type StatusAuditWriter } from './insertStatusAudit.js';

/** The end of one run (or of a cancelled run), recorded on an InProgress row. */
export interface FinishedRun {
  id: string;
  auditLevel: AuditLevel;
  /** End of the run: last_execution_at, runs_audit.executed_at, audit time. */
  endedAt: number;
  /** Measured around the handler; 0 when the run threw. */
  executionTimeMs: number;
  /** Outcome of the run: Completed or Failed counts as a finished run (run_count + 1); Cancelled does not. */
  outcome: 'Completed' | 'Failed' | 'Cancelled';
  exception: string | null;
  /** The status the row moves to: Completed, Failed, Cancelled, or Pending (inline recurring, next run). */
  nextStatus: 'Completed' | 'Failed' | 'Cancelled' | 'Pending';
  /** Due time of the next inline recurring run (nextStatus Pending). */
  nextScheduledAt: number | null;
  /** Inline recurring row: writes a runs_audit row for the run (subject to the audit level). */
  recurring: boolean;
}

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
