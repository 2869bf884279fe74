import type { Database } from 'better-sqlite3';
import type { ManagedTaskRow } from '../../common/ManagedTaskRow.js';
import { preparedStatement } from '../schedules/preparedStatement.js';

/**
 * The task row `id` with what the management rules read (its schedule's status). Task rows only:
 * the caller first turns a compact occurrence of that id into its task row (migration 15,
 * `spillPendingOccurrences`), in the same transaction.
 */
export function selectManagedTask(db: Database, id: string): ManagedTaskRow | undefined {
  return preparedStatement(
    db,
    `SELECT t.id, t.type, t.handler, t.request, t.queue, t.status, t.audit_level, t.parent_task_id, t.is_recurring, t.created_at,
            (t.occurrence_mode IS 'Durable' AND t.parent_task_id IS NULL) AS is_schedule,
            p.status AS parent_status
       FROM tasks t LEFT JOIN tasks p ON p.id = t.parent_task_id
      WHERE t.id = ?`,
  ).get(id) as ManagedTaskRow | undefined;
}
