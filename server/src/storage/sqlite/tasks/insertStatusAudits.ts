import type { Database } from 'better-sqlite3';
import type { TaskStatus } from '../../../contracts/index.js';
import { preparedStatement } from '../schedules/preparedStatement.js';

const CHUNK = 128;

/** One status-audit row: task id, instant, new status, error text. */
export type StatusAuditRow = [taskId: string, at: number, newStatus: TaskStatus, exception: string | null];

/**
 * Status-audit rows, many per statement, in the order given. The caller has already applied
 * the audit level (only transitions whose level records them are passed).
 */
export function insertStatusAudits(db: Database, rows: readonly StatusAuditRow[]): void {
  for (let start = 0; start < rows.length; start += CHUNK) {
    const chunk = rows.length <= CHUNK ? rows : rows.slice(start, start + CHUNK);
    const params: unknown[] = [];
    for (const r of chunk) params.push(r[0], r[1], r[2], r[3]);
    preparedStatement(
      db,
      `INSERT INTO status_audit (task_id, updated_at, new_status, exception) VALUES ${Array.from({ length: chunk.length }, () => '(?, ?, ?, ?)').join(', ')}`,
    ).run(params);
  }
}
