import type { ReadDb } from './ReadDb.js';

/**
 * How many Queued rows at the head of a queue may be looked at for reservations. An engine
 * reserves the oldest claimable rows of a queue (claim order: created first), at most 16 ×
 * concurrency per instance (64 at the default concurrency of 4), so the reserved rows sit at the
 * head; bounding the look keeps the read O(log n) on a queue of millions. Each row looked at is one
 * table lookup (the reservation is in no index): at 5,000 rows the overview and GET /queues took
 * ~45 ms more at 1 M tasks (bench:api), at 500 a few. A reservation further back (many instances at
 * a high concurrency, or an instance handling only a few of a queue's types behind rows it does not
 * handle) is not counted.
 */
export const RESERVED_HEAD_ROWS = 500;

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
