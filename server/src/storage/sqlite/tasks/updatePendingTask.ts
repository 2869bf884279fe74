import type { Database } from 'better-sqlite3';
import type { ReadModelDeltas } from '../readModels/readModelDeltas.js';

export interface PendingTaskUpdate {
  id: string;
  request: string;
  scheduledAt: number;
  /** New inline-recurrence definition (JSON), or null to keep the row's. */
  recurrence: string | null;
}

/** Task keys: a re-dispatch of a Pending keyed row updates its request and due time (no transition, no audit). */
export function prepareUpdatePendingTask(db: Database): (u: PendingTaskUpdate, deltas: ReadModelDeltas) => boolean {
  const stmt = db.prepare(`UPDATE tasks SET request = ?, scheduled_at = ?, recurrence = COALESCE(?, recurrence)
    WHERE id = ? AND status = 'Pending'`);
  return (u, deltas) => {
    if (stmt.run(u.request, u.scheduledAt, u.recurrence, u.id).changes !== 1) return false;
    deltas.requestChanged(u.id, u.request);
    return true;
  };
}
