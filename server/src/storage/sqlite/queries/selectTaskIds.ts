import type { Database, Statement } from 'better-sqlite3';
import type { TaskListFilter } from '../../MonitoringStore.js';
import type { TypeResolver } from './resolveTypeNames.js';
import { buildTaskListWhere, type TaskListWhereFeatures } from './taskListWhere.js';

/**
 * Ids of the rows a task-list filter matches (the targets of a bulk action), oldest first,
 * at most `limit`.
 */
export function createSelectTaskIds(db: Database, resolver: TypeResolver, features?: TaskListWhereFeatures) {
  const cache = new Map<string, Statement>();
  return function selectTaskIds(filter: TaskListFilter, limit: number): string[] {
    const where = buildTaskListWhere(filter, resolver, features);
    if (where.empty) return [];
    const sql = `SELECT id FROM tasks ${where.sql(false)} ORDER BY created_at, rowid LIMIT ?`;
    let st = cache.get(sql);
    if (!st) {
      st = db.prepare(sql).pluck();
      if (cache.size > 100) cache.clear();
      cache.set(sql, st);
    }
    return st.all(...where.params, limit) as string[];
  };
}
