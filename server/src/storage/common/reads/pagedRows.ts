import type { PageRequest } from '../../MonitoringStore.js';
import { queryOne, type ReadDb } from './ReadDb.js';

/**
 * One page of a task's history and the count of all of it, read together: `from` is the FROM and
 * WHERE text after SELECT (its placeholders first), `order` the ORDER BY; nothing is read for a
 * page of zero rows.
 */
export async function pagedRows<Row>(
  db: ReadDb,
  columns: string,
  from: string,
  order: string,
  params: readonly unknown[],
  req: PageRequest,
): Promise<{ rows: Row[]; totalCount: number }> {
  const [count, rows] = await Promise.all([
    queryOne<{ n: number }>(db, `SELECT COUNT(*) AS n ${from}`, params),
    req.take === 0 ? Promise.resolve([]) : db.query<Row>(`SELECT ${columns} ${from} ORDER BY ${order} LIMIT ? OFFSET ?`, [...params, req.take, req.skip]),
  ]);
  return { rows, totalCount: count.n };
}
