import type { Database } from 'better-sqlite3';
import { prepareLimitedSelect } from './limitedSelect.js';
import { CLAIMABLE, KEYED_RUNNABLE_COLUMNS, keyedRunnableRow, type KeyedRunnableRow, type RunnableTaskRow } from './TaskRow.js';


/**
 * Reserves up to `limit` of the oldest claimable Queued rows of a queue for this store's engine:
 * the claim path when no handled type has a rate limit (nothing to decide per row). The rows stay
 * Queued (no status move, no audit, no read-model change); `reserved_by`/`reserved_at` keep other
 * claims off them until the handler begins (`startRuns`) or the reservation is handed back.
 * Rows come back in claim order: oldest created first, ties in insertion order (rowid, the
 * last column of the claim index: no sort).
 *
 * The candidates are read first without a type filter (the common case: this engine handles
 * every type queued there), and again with one only when a candidate's type is not handled;
 * each is then marked by its key. Inside the writer's transaction nothing else moves them
 * between the read and the update; the `status = 'Queued'` guard keeps the update exact anyway.
 */
export function prepareClaimTasksAtOnce(
  db: Database,
  instanceId: string,
): (queue: string, typesJson: string, limit: number, now: number, reservationMs: number, handles: (type: string) => boolean) => RunnableTaskRow[] {
  // Each candidate comes with its rowid: the reservation marks it by that key, without a second walk of
  // the id index (the read and the update share one transaction, so the rowid cannot change between).
  const selectAny = prepareLimitedSelect(db, (limit) => `SELECT ${KEYED_RUNNABLE_COLUMNS} FROM tasks
    WHERE queue = ? AND ${CLAIMABLE}
    ORDER BY created_at, rowid LIMIT ${limit}`, true);
  const selectHandled = prepareLimitedSelect(db, (limit) => `SELECT ${KEYED_RUNNABLE_COLUMNS} FROM tasks
    WHERE queue = ? AND ${CLAIMABLE}
      AND type IN (SELECT value FROM json_each(?))
    ORDER BY created_at, rowid LIMIT ${limit}`, true);
  const reserve = db.prepare(`UPDATE tasks SET reserved_by = ?, reserved_at = ?, throttled_until = NULL
    WHERE rowid = ? AND status = 'Queued'`);
  const keyed = (v: unknown[]) => keyedRunnableRow(v, instanceId);
  return (queue, typesJson, limit, now, reservationMs, handles) => {
    const heldSince = now - reservationMs;
    let candidates = (selectAny(limit, queue, now, heldSince) as unknown[][]).map(keyed);
    if (!candidates.every((r) => handles(r.type))) candidates = (selectHandled(limit, queue, now, heldSince, typesJson) as unknown[][]).map(keyed);
    const rows: RunnableTaskRow[] = [];
    for (const r of candidates) {
      if (reserve.run(instanceId, now, r.row_key).changes !== 1) continue;
      r.reserved_at = now;
      rows.push(r);
    }
    return rows;
  };
}
