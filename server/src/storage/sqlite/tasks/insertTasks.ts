import type { Database } from 'better-sqlite3';
import type { TaskStatus } from '../../../contracts/index.js';
import { auditAllows } from '../../common/auditAllows.js';
import type { NewTask } from '../../EngineStore.js';
import type { StatusAuditRow } from './insertStatusAudits.js';
import type { ReadModelDeltas } from '../readModels/readModelDeltas.js';

/** A new task as the engine hands it (NewTask), with the first status the store chose instead of its due time. */
export type NewTaskRow = Omit<NewTask, 'dueAt'> & { status: Extract<TaskStatus, 'Pending' | 'Queued' | 'WaitingQueue'> };

/**
 * Inserts a new task row (in the caller's transaction), recording it in `deltas`; its first
 * status-audit row, when its audit level records one, goes into `audits` for the caller to write
 * with the others of its batch (`insertStatusAudits`, before any later change of the row).
 */
export function prepareInsertTasks(db: Database): (row: NewTaskRow, deltas: ReadModelDeltas, audits: StatusAuditRow[]) => void {
  const stmt = db.prepare(`INSERT INTO tasks
    (id, type, handler, request, queue, status, task_key, audit_level, created_at, scheduled_at,
     retry_policy, timeout_ms, rate_limit_key, is_recurring, recurrence, traceparent, tracestate)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  return (r, deltas, audits) => {
    const { lastInsertRowid } = stmt.run(
      r.id, r.type, r.handler, r.request, r.queue, r.status, r.taskKey, r.auditLevel, r.createdAt, r.scheduledAt,
      r.retryPolicy, r.timeoutMs, r.rateLimitKey, r.isRecurring ? 1 : 0, r.recurrence, r.traceparent ?? null, r.tracestate ?? null,
    );
    if (auditAllows(r.auditLevel, null)) audits.push([r.id, r.createdAt, r.status, null]);
    deltas.inserted({
      id: r.id, queue: r.queue, type: r.type, handler: r.handler, request: r.request, status: r.status, task_key: r.taskKey,
      is_recurring: r.isRecurring ? 1 : 0, is_occurrence: 0, created_at: r.createdAt, rowid: Number(lastInsertRowid),
    });
  };
}
