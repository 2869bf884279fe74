import type { PoolClient } from 'pg';
import type { NewExecutionLog } from '../../EngineStore.js';

/** Appends execution log rows in one statement; their ids in the order given. */
export async function insertExecutionLogs(c: PoolClient, logs: readonly NewExecutionLog[]): Promise<number[]> {
  if (logs.length === 0) return [];
  const { rows } = await c.query<{ id: number }>(
    `INSERT INTO execution_logs (task_id, timestamp, level, message, exception_details, sequence_number)
     SELECT task_id, ts, level, message, details, seq
       FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::int[]) WITH ORDINALITY
            AS l(task_id, ts, level, message, details, seq, ord)
      ORDER BY ord
     RETURNING id`,
    [
      logs.map((l) => l.taskId), logs.map((l) => l.timestamp), logs.map((l) => l.level), logs.map((l) => l.message),
      logs.map((l) => l.exceptionDetails), logs.map((l) => l.sequenceNumber),
    ],
  );
  // Identity values are assigned in insertion order.
  return rows.map((r) => r.id).sort((a, b) => a - b);
}
