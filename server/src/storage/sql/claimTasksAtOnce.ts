import type { Database } from 'better-sqlite3';
import { insertStatusAuditRows, type StatusAuditRow } from './insertStatusAuditRows.js';
import { prepareLimitedSelect } from './limitedSelect.js';
import type { ReadModelDeltas } from './readModels/ReadModelDeltas.js';
import { RUNNABLE_COLUMNS, type RunnableTaskRow } from './TaskRow.js';

/** A candidate row with its rowid (`row_key`), which stays on the returned row for the run's end. */
type KeyedRow = RunnableTaskRow & { row_key: number };

/**
 * Queued → InProgress for up to `limit` of the oldest claimable Queued rows of a queue, with
 * their 'InProgress' audits in one multi-row insert: the claim path when no handled type has a
 * rate limit (nothing to decide per row). Rows come back oldest first.
 *
 * The candidates are read first without a type filter (the common case: this engine handles
 * every type queued there), and again with one only when a candidate's type is not handled;
 * each is then moved by its key. Inside the writer's transaction nothing else moves them
 * between the read and the update; the `status = 'Queued'` guard keeps the update exact anyway.
 */
export function prepareClaimTasksAtOnce(
  db: Database,
): (queue: string, typesJson: string, limit: number, now: number, handles: (type: string) => boolean, deltas: ReadModelDeltas) => RunnableTaskRow[] {
  // Each candidate comes with its rowid: the claim moves it by that key, without a second walk of
  // the id index (the read and the update share one transaction, so the rowid cannot change between).
  const selectAny = prepareLimitedSelect(db, (limit) => `SELECT ${RUNNABLE_COLUMNS}, rowid AS row_key FROM tasks
    WHERE queue = ? AND status = 'Queued' AND (throttled_until IS NULL OR throttled_until <= ?)
    ORDER BY created_at LIMIT ${limit}`);
  const selectHandled = prepareLimitedSelect(db, (limit) => `SELECT ${RUNNABLE_COLUMNS}, rowid AS row_key FROM tasks
    WHERE queue = ? AND status = 'Queued' AND (throttled_until IS NULL OR throttled_until <= ?)
      AND type IN (SELECT value FROM json_each(?))
    ORDER BY created_at LIMIT ${limit}`);
  const start = db.prepare(`UPDATE tasks SET status = 'InProgress', started_at = ?, throttled_until = NULL
    WHERE rowid = ? AND status = 'Queued'`);
  return (queue, typesJson, limit, now, handles, deltas) => {
    let candidates = selectAny(limit, queue, now) as KeyedRow[];
    if (!candidates.every((r) => handles(r.type))) candidates = selectHandled(limit, queue, now, typesJson) as KeyedRow[];
    const rows: RunnableTaskRow[] = [];
    const audited: StatusAuditRow[] = [];
    for (const r of candidates) {
      if (start.run(now, r.row_key).changes !== 1) continue;
      r.status = 'InProgress';
      rows.push(r);
      if (r.audit_level === 'Full') audited.push([r.id, now, 'InProgress', null]);
      deltas.moved({ queue: r.queue, type: r.type, is_recurring: r.is_recurring, is_occurrence: r.parent_task_id === null ? 0 : 1, created_at: r.created_at }, 'Queued', 'InProgress');
    }
    if (audited.length > 0) insertStatusAuditRows(db, audited);
    return rows;
  };
}
