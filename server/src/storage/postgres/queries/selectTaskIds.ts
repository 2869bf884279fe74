import type { TaskListFilter } from '../../MonitoringStore.js';
import type { PgQuery } from './PgQuery.js';
import type { PgTypeResolver } from './resolveTypeNames.js';
import { pgTaskListWhere } from './taskListWhere.js';

/** Ids of the rows a task-list filter matches (the targets of a bulk action), oldest first, at most `limit`. */
export function pgSelectTaskIds(q: PgQuery, resolver: PgTypeResolver) {
  return async function selectTaskIds(filter: TaskListFilter, limit: number): Promise<string[]> {
    const where = await pgTaskListWhere(filter, resolver);
    if (where.empty) return [];
    const rows = await q<{ id: string }>(
      `SELECT id FROM tasks ${where.sql} ORDER BY created_at, seq LIMIT ${where.params.add(limit)}`,
      where.params.values,
    );
    return rows.map((r) => r.id);
  };
}
