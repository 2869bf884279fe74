import type { TaskStatus } from '../../../contracts/index.js';
import type { ManagementTarget } from '../../MonitoringStore.js';
import type { ReadDb } from './ReadDb.js';

/** The facts a management endpoint checks before addressing the schedule operations. */
export function createManagementTarget(db: ReadDb) {
  return async function managementTarget(id: string): Promise<ManagementTarget | undefined> {
    const [r] = await db.query<{ id: string; task_key: string | null; occurrence_mode: string | null; parent_task_id: string | null; status: TaskStatus }>(
      `SELECT id, task_key, occurrence_mode, parent_task_id, status FROM tasks WHERE id = ?`,
      [id],
    );
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
