import type { Database } from 'better-sqlite3';
import type { ExecutionLogEntry, ExecutionLogPage, LogLevel } from '../../contracts/index.js';
import type { PageRequest } from '../MonitoringStore.js';
import { toIso } from '../time.js';

interface Row {
  id: number;
  task_id: string;
  timestamp: number;
  level: LogLevel;
  message: string;
  exception_details: string | null;
  sequence_number: number;
}

export const toLog = (r: Row): ExecutionLogEntry => ({
  id: r.id,
  taskId: r.task_id,
  timestampUtc: toIso(r.timestamp),
  level: r.level,
  message: r.message,
  exceptionDetails: r.exception_details ?? undefined,
  sequenceNumber: r.sequence_number,
});

/** Execution logs in sequence order (oldest first), paged like the audits. */
export function createPageExecutionLogs(db: Database) {
  const page = db.prepare(
    `SELECT id, task_id, timestamp, level, message, exception_details, sequence_number FROM execution_logs
     WHERE task_id = ? ORDER BY sequence_number, id LIMIT ? OFFSET ?`,
  );
  const count = db.prepare(`SELECT COUNT(*) FROM execution_logs WHERE task_id = ?`).pluck();
  return function pageExecutionLogs(taskId: string, req: PageRequest): Omit<ExecutionLogPage, 'skip' | 'take'> {
    const totalCount = count.get(taskId) as number;
    const logs = req.take === 0 ? [] : (page.all(taskId, req.take, req.skip) as Row[]).map(toLog);
    return { logs, totalCount };
  };
}
