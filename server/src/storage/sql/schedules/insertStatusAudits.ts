import type { Database } from 'better-sqlite3';
import type { AuditLevel, TaskStatus } from '../../../contracts/index.js';
import { auditAllows } from '../insertStatusAudit.js';
import { preparedStatement } from './preparedStatement.js';

const CHUNK = 128;

/** The same transition of many rows sharing one audit level (e.g. new occurrences → Pending). */
export function insertStatusAudits(db: Database, taskIds: readonly string[], auditLevel: AuditLevel, newStatus: TaskStatus, atMs: number): void {
  if (!auditAllows(auditLevel, null)) return;
  for (let start = 0; start < taskIds.length; start += CHUNK) {
    const chunk = taskIds.slice(start, start + CHUNK);
    const params: unknown[] = [];
    for (const id of chunk) params.push(id, atMs, newStatus);
    preparedStatement(
      db,
      `INSERT INTO status_audit (task_id, updated_at, new_status) VALUES ${Array.from({ length: chunk.length }, () => '(?, ?, ?)').join(', ')}`,
    ).run(params);
  }
}
