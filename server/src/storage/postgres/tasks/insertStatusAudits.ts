import type { PoolClient } from 'pg';
import type { AuditLevel, TaskStatus } from '../../../contracts/index.js';
import { auditAllows } from '../../common/auditAllows.js';

export interface AuditRow {
  taskId: string;
  level: AuditLevel;
  at: number;
  status: TaskStatus;
  exception?: string | null;
  changedBy?: string | null;
}

/** Appends the status-audit rows the tasks' audit levels record, in one statement. */
export async function insertStatusAudits(c: PoolClient, rows: readonly AuditRow[]): Promise<void> {
  const kept = rows.filter((r) => auditAllows(r.level, r.exception));
  if (kept.length === 0) return;
  await c.query(
    `INSERT INTO status_audit (task_id, updated_at, new_status, exception, changed_by)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[])`,
    [kept.map((r) => r.taskId), kept.map((r) => r.at), kept.map((r) => r.status), kept.map((r) => r.exception ?? null), kept.map((r) => r.changedBy ?? null)],
  );
}
