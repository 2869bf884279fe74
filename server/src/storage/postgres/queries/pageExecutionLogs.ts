import type { ExecutionLogPage } from '../../../contracts/index.js';
import type { PageRequest } from '../../MonitoringStore.js';
import { toLog } from '../../queries/pageExecutionLogs.js';
import type { PgQuery } from './PgQuery.js';

/** Execution logs of one task in sequence order (oldest first), paged like the audits. */
export function pgPageExecutionLogs(q: PgQuery) {
  return async function pageExecutionLogs(taskId: string, req: PageRequest): Promise<Omit<ExecutionLogPage, 'skip' | 'take'>> {
    const [count, rows] = await Promise.all([
      q<{ n: number }>(`SELECT COUNT(*) AS n FROM execution_logs WHERE task_id = $1`, [taskId]),
      req.take === 0
        ? Promise.resolve([])
        : q<Parameters<typeof toLog>[0]>(
            `SELECT id, task_id, timestamp, level, message, exception_details, sequence_number FROM execution_logs
              WHERE task_id = $1 ORDER BY sequence_number, id LIMIT $2 OFFSET $3`,
            [taskId, req.take, req.skip],
          ),
    ]);
    return { logs: rows.map(toLog), totalCount: count[0]!.n };
  };
}
