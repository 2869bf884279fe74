import type { Database } from 'better-sqlite3';
import type { TaskStatus } from '../../../contracts/index.js';
import { IS_SCHEDULE_ROW, TERMINAL_STATUSES_SQL } from './TaskRow.js';

export interface OpenKeyedTask {
  id: string;
  status: TaskStatus;
}

/**
 * The newest non-terminal row carrying a task key (durable schedule rows excluded: they have their
 * own keys). Compact occurrences (migration 15) never match: an occurrence has no task key.
 */
export function prepareFindOpenTaskByKey(db: Database): (taskKey: string) => OpenKeyedTask | undefined {
  const stmt = db.prepare(`SELECT id, status FROM tasks
    WHERE task_key = ? AND status NOT IN ${TERMINAL_STATUSES_SQL} AND NOT ${IS_SCHEDULE_ROW}
    ORDER BY created_at DESC LIMIT 1`);
  return (taskKey) => stmt.get(taskKey) as OpenKeyedTask | undefined;
}
