import type { TaskListFilter } from '../../MonitoringStore.js';
import type { ReadDb } from './ReadDb.js';
import type { TypeResolver } from './resolveTypeNames.js';
import { buildTaskListWhere } from './taskListWhere.js';

/** Ids of the rows a task-list filter matches (the targets of a bulk action), oldest first, at most `limit`. */
export function createSelectTaskIds(db: ReadDb, resolver: TypeResolver) {
  return async function selectTaskIds(filter: TaskListFilter, limit: number): Promise<string[]> {
    const where = await buildTaskListWhere(db, filter, resolver);
    if (where.empty) return [];
    const sql = `SELECT id FROM tasks ${where.sql(false)} ORDER BY created_at, ${db.dialect.insertionOrder} LIMIT ?`;
    return (await db.query<{ id: string }>(sql, [...where.params, limit])).map((r) => r.id);
  };
}
