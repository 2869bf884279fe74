import type { ReadDb } from './ReadDb.js';

/**
 * How many Queued rows at the head of a queue may be looked at for reservations. An engine
 * reserves the oldest claimable rows of a queue (claim order: created first), at most 16 ×
 * concurrency per instance, so the reserved rows sit at the head; bounding the look keeps the
 * read O(log n) on a queue of millions. A reservation further back (an instance handling only a
 * few of a queue's types behind thousands of rows it does not handle) is not counted.
 */
export const RESERVED_HEAD_ROWS = 5000;

/**
 * Reserved rows of a queue (Queued, taken ahead of a free worker by an engine instance, not
 * started), for the queue metrics and the overview. Undefined on a database from before
 * reservations.
 */
export function createReservedCount(db: ReadDb) {
  const sql = `SELECT COUNT(reserved_by) AS n FROM (SELECT reserved_by FROM tasks WHERE queue = ? AND status = 'Queued'
     ORDER BY created_at LIMIT ${RESERVED_HEAD_ROWS}) head`;
  return async function reservedCount(queue: string): Promise<number | undefined> {
    if (!db.features.reservations) return undefined;
    const [row] = await db.query<{ n: number }>(sql, [queue]);
    return row?.n ?? 0;
  };
}
