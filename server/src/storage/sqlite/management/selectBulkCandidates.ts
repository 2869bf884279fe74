import type { Database } from 'better-sqlite3';
import type { TaskStatus } from '../../../contracts/index.js';
import type { BulkBatchAction } from '../../TaskManagementStore.js';
import { preparedStatement } from '../schedules/preparedStatement.js';
import type { ManagedTaskRow } from '../../common/ManagedTaskRow.js';

/** A row a bulk action applies to, with the columns its change, its audit entry and its event need. */
export type BulkCandidateRow = Omit<ManagedTaskRow, 'is_schedule' | 'parent_status'>;

/**
 * The same rules as `actionRefusal`, as one WHERE clause over many rows: never a durable schedule
 * row; retry only a row that is not inline recurring; requeue only an occurrence; retry and
 * requeue of an occurrence only while its schedule row exists and is not Cancelled.
 */
function qualifies(action: BulkBatchAction): string {
  const parts = [`NOT (t.occurrence_mode IS 'Durable' AND t.parent_task_id IS NULL)`];
  if (action === 'retry') parts.push('t.is_recurring = 0');
  if (action === 'requeue') parts.push('t.parent_task_id IS NOT NULL');
  if (action !== 'cancel') {
    parts.push(`(t.parent_task_id IS NULL OR EXISTS (SELECT 1 FROM tasks p WHERE p.id = t.parent_task_id AND p.status <> 'Cancelled'))`);
  }
  return parts.join(' AND ');
}

/**
 * Of `ids`, the rows that `action` applies to now and whose status is one of `allowed`, read in
 * one statement (the ids travel as one JSON array). Rows missing from the answer are skipped.
 * Task rows only: compact occurrences among `ids` (migration 15) are turned into task rows first
 * by the caller when `allowed` has Pending (they are all Pending; no other action takes them).
 */
export function selectBulkCandidates(db: Database, action: BulkBatchAction, ids: readonly string[], allowed: readonly TaskStatus[]): BulkCandidateRow[] {
  if (allowed.length === 0 || ids.length === 0) return [];
  const inList = allowed.map((s) => `'${s}'`).join(', ');
  return preparedStatement(
    db,
    `SELECT t.id, t.type, t.handler, t.request, t.queue, t.status, t.audit_level, t.parent_task_id, t.is_recurring, t.created_at
       FROM tasks t
      WHERE t.id IN (SELECT value FROM json_each(?)) AND t.status IN (${inList}) AND ${qualifies(action)}`,
  ).all(JSON.stringify(ids)) as BulkCandidateRow[];
}
