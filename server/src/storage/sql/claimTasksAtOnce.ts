import type { Database } from 'better-sqlite3';
import { insertStatusAuditRows } from './insertStatusAuditRows.js';
import type { ReadModelDeltas } from './readModels/ReadModelDeltas.js';
import { RUNNABLE_COLUMNS, type RunnableTaskRow } from './TaskRow.js';

/**
 * Queued → InProgress for up to `limit` of the oldest claimable Queued rows of a queue, in one
 * statement, with their 'InProgress' audits in one more: the claim path when no handled type
 * has a rate limit (nothing to decide per row). Rows come back oldest first.
 */
export function prepareClaimTasksAtOnce(
  db: Database,
): (queue: string, typesJson: string, limit: number, now: number, deltas: ReadModelDeltas) => RunnableTaskRow[] {
  const claim = db.prepare(`UPDATE tasks SET status = 'InProgress', started_at = ?, throttled_until = NULL
    WHERE id IN (SELECT id FROM tasks
      WHERE queue = ? AND status = 'Queued' AND (throttled_until IS NULL OR throttled_until <= ?)
        AND type IN (SELECT value FROM json_each(?))
      ORDER BY created_at LIMIT ?)
    RETURNING ${RUNNABLE_COLUMNS}`);
  return (queue, typesJson, limit, now, deltas) => {
    const rows = claim.all(now, queue, now, typesJson, limit) as RunnableTaskRow[];
    if (rows.length === 0) return rows;
    rows.sort((a, b) => a.created_at - b.created_at);
    for (const r of rows) deltas.moved({ ...r, is_occurrence: r.parent_task_id === null ? 0 : 1 }, 'Queued', 'InProgress');
    insertStatusAuditRows(db, rows.filter((r) => r.audit_level === 'Full').map((r) => r.id), now, 'InProgress');
    return rows;
  };
}

