import type { AuditLevel } from '../../../contracts/index.js';
import { auditAllows } from '../../common/auditAllows.js';

/** The columns the operations read, locked with FOR UPDATE inside their transaction. */
export const OPERATION_COLUMNS = `id, status, task_key, audit_level, is_recurring, occurrence_mode, parent_task_id, halt, scheduled_at`;

export interface OperationRow {
  id: string;
  status: string;
  task_key: string | null;
  audit_level: string;
  is_recurring: number;
  occurrence_mode: string | null;
  parent_task_id: string | null;
  halt: string | null;
  scheduled_at: number | null;
}

/** Whether a transition without error text writes a status-audit row at this level (Full only). */
export const auditsTransition = (auditLevel: string) => auditAllows(auditLevel as AuditLevel, null);
