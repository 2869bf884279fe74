import type { TaskStatus } from '../../../contracts/index.js';
import type { ManagementTarget } from '../../MonitoringStore.js';
import { PENDING_OCCURRENCE_TASKS, pendingOccurrenceReads } from './pendingOccurrenceReads.js';
import type { ReadDb } from './ReadDb.js';

type TargetRow = { id: string; task_key: string | null; occurrence_mode: string | null; parent_task_id: string | null; status: TaskStatus };

/** The facts a management endpoint checks before addressing the schedule operations. */
export function createManagementTarget(db: ReadDb) {
  const columns = `id, task_key, occurrence_mode, parent_task_id, status`;
  // No task row: the id may be a compact occurrence (a write to it turns it into a task row first).
  const compact = pendingOccurrenceReads(db) && `SELECT ${columns} FROM ${PENDING_OCCURRENCE_TASKS} WHERE id = ?`;
  return async function managementTarget(id: string): Promise<ManagementTarget | undefined> {
    let [r] = await db.query<TargetRow>(`SELECT ${columns} FROM tasks WHERE id = ?`, [id]);
    if (!r && compact) [r] = await db.query<TargetRow>(compact, [id]);
    if (!r) return undefined;
    return {
      id: r.id,
      taskKey: r.task_key ?? undefined,
      isDurableSchedule: r.occurrence_mode === 'Durable' && r.parent_task_id === null,
      isOccurrence: r.parent_task_id !== null,
      status: r.status,
    };
  };
}
