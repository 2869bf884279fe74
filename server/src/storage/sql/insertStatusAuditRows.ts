import type { Database } from 'better-sqlite3';
import type { TaskStatus } from '../../contracts/index.js';
import { preparedStatement } from './schedules/preparedStatement.js';

const CHUNK = 128;

/**
 * One status-audit row per task id, the same transition at the same instant, many rows per
 * statement. The caller has already applied the audit level (only tasks whose level records
 * the change are passed).
 */
export function insertStatusAuditRows(db: Database, taskIds: readonly string[], at: number, newStatus: TaskStatus): void {
  for (let start = 0; start < taskIds.length; start += CHUNK) {
    const chunk = taskIds.length <= CHUNK ? taskIds : taskIds.slice(start, start + CHUNK);
    const params: unknown[] = [];
    for (const id of chunk) params.push(id, at, newStatus);
    preparedStatement(
      db,
      `INSERT INTO status_audit (task_id, updated_at, new_status) VALUES ${Array.from({ length: chunk.length }, () => '(?, ?, ?)').join(', ')}`,
    ).run(params);
  }
}
