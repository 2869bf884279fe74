import type { ExecutionLogEntry, ExecutionLogPage, LogLevel } from '../../../contracts/index.js';
import type { PageRequest } from '../../MonitoringStore.js';
import { toIso } from '../time.js';
import { pagedRows } from './pagedRows.js';
import type { ReadDb } from './ReadDb.js';

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
export function createPageExecutionLogs(db: ReadDb) {
  return async function pageExecutionLogs(taskId: string, req: PageRequest): Promise<Omit<ExecutionLogPage, 'skip' | 'take'>> {
    const { rows, totalCount } = await pagedRows<Row>(
      db,
      'id, task_id, timestamp, level, message, exception_details, sequence_number',
      'FROM execution_logs WHERE task_id = ?',
      'sequence_number, id',
      [taskId],
      req,
    );
    return { logs: rows.map(toLog), totalCount };
  };
}
