import type { Database } from 'better-sqlite3';
import type { ReadModelDeltas } from '../readModels/readModelDeltas.js';

/**
 * Number of Queued rows of a queue, read from the stat_tasks read model (O(groups)) plus the
 * changes of the current transaction that are not written there yet.
 */
export function prepareCountQueued(db: Database): (queue: string, deltas: ReadModelDeltas) => number {
  const stmt = db.prepare(`SELECT COALESCE(SUM(n), 0) AS n FROM stat_tasks WHERE queue = ? AND status = 'Queued'`).pluck();
  return (queue, deltas) => (stmt.get(queue) as number) + deltas.queuedChange(queue);
}
