import type { TaskListFilter } from '../../MonitoringStore.js';
import type { ReadDb } from './ReadDb.js';
import { pendingOccurrenceReads } from './pendingOccurrenceReads.js';
import type { TypeResolver } from './resolveTypeNames.js';
import { taskListUnion } from './taskListUnion.js';
import { buildTaskListWhere } from './taskListWhere.js';

/** Ids of the rows a task-list filter matches (the targets of a bulk action), oldest first, at most `limit`. */
export function createSelectTaskIds(db: ReadDb, resolver: TypeResolver) {
  const pending = pendingOccurrenceReads(db);
  return async function selectTaskIds(filter: TaskListFilter, limit: number): Promise<string[]> {
    const where = await buildTaskListWhere(db, filter, resolver);
    if (where.empty) return [];
    // Compact occurrences the filter matches are targets too (a write to one turns it into a task row first).
    const union = await taskListUnion(db, pending, filter, resolver, where);
    if (union) return (await union.page<{ id: string }>('id, created_at', ['created_at'], false, limit, 0)).map((r) => r.id);
    const sql = `SELECT id FROM tasks ${where.sql(false)} ORDER BY created_at, ${db.dialect.insertionOrder} LIMIT ?`;
    return (await db.query<{ id: string }>(sql, [...where.params, limit])).map((r) => r.id);
  };
}
