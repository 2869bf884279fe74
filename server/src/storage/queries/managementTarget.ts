import type { Database } from 'better-sqlite3';
import type { TaskStatus } from '../../contracts/index.js';
import type { ManagementTarget } from '../MonitoringStore.js';

/** The facts a management endpoint checks before addressing the schedule manager. */
export function createManagementTarget(db: Database) {
  const st = db.prepare(`SELECT id, task_key, occurrence_mode, parent_task_id, status FROM tasks WHERE id = ?`);
  return function managementTarget(id: string): ManagementTarget | undefined {
    const r = st.get(id) as
      | { id: string; task_key: string | null; occurrence_mode: string | null; parent_task_id: string | null; status: TaskStatus }
      | undefined;
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
