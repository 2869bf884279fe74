import type { Database } from 'better-sqlite3';
import type { TaskStatus } from '../../../contracts/index.js';
import { preparedStatement } from '../schedules/preparedStatement.js';

/**
 * One status-audit row per task id naming who made the change, the same transition at the same
 * instant, in one statement (the ids as one JSON array, audit rows in its order). The caller has
 * applied the audit level (only tasks whose level records the change are passed).
 */
export function insertActorStatusAudits(db: Database, taskIds: readonly string[], newStatus: TaskStatus, atMs: number, actor: string): void {
  if (taskIds.length === 0) return;
  preparedStatement(
    db,
    `INSERT INTO status_audit (task_id, updated_at, new_status, exception, changed_by)
     SELECT value, ?, ?, NULL, ? FROM json_each(?) ORDER BY key`,
  ).run(atMs, newStatus, actor, JSON.stringify(taskIds));
}
