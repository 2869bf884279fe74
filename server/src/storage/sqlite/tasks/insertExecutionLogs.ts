import type { Database } from 'better-sqlite3';
import type { NewExecutionLog } from '../../EngineStore.js';

export type { NewExecutionLog };

/** Appends one execution log row (a handler's `ctx.log` call); returns its id. */
export function prepareInsertExecutionLogs(db: Database): (log: NewExecutionLog) => number {
  const stmt = db.prepare(`INSERT INTO execution_logs (task_id, timestamp, level, message, exception_details, sequence_number)
    VALUES (?, ?, ?, ?, ?, ?)`);
  return (l) => Number(stmt.run(l.taskId, l.timestamp, l.level, l.message, l.exceptionDetails, l.sequenceNumber).lastInsertRowid);
}
