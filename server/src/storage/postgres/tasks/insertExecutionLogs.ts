import type { PoolClient } from 'pg';
import type { NewExecutionLog } from '../../EngineStore.js';

/**
 * Appends execution log rows in one statement; their ids in the order given.
 * `retry`: the rows may already have been stored by a commit whose answer was lost. A row that
 * is already there (same task, sequence number, instant, level and message) is not written
 * again; its stored id is reported instead. The check reads the (task_id, sequence_number)
 * index and runs only on the commit that reconciles a lost one.
 */
export async function insertExecutionLogs(c: PoolClient, logs: readonly NewExecutionLog[], retry = false): Promise<number[]> {
  if (logs.length === 0) return [];
  const stored = retry ? await storedLogIds(c, logs) : new Map<number, number>();
  const fresh = logs.filter((_, i) => !stored.has(i));
  const freshIds = fresh.length === 0 ? [] : await appendLogs(c, fresh);
  let next = 0;
  return logs.map((_, i) => stored.get(i) ?? freshIds[next++]!);
}

async function appendLogs(c: PoolClient, logs: readonly NewExecutionLog[]): Promise<number[]> {
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

/** Positions (0-based) of the given rows that are already stored, with their stored ids. */
async function storedLogIds(c: PoolClient, logs: readonly NewExecutionLog[]): Promise<Map<number, number>> {
  const { rows } = await c.query<{ ord: number; id: number }>(
    `SELECT l.ord::int AS ord, MIN(e.id) AS id
       FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::int[]) WITH ORDINALITY AS l(task_id, ts, level, message, seq, ord)
       JOIN execution_logs e ON e.task_id = l.task_id AND e.sequence_number = l.seq
                            AND e.timestamp = l.ts AND e.level = l.level AND e.message = l.message
      GROUP BY l.ord`,
    [logs.map((l) => l.taskId), logs.map((l) => l.timestamp), logs.map((l) => l.level), logs.map((l) => l.message), logs.map((l) => l.sequenceNumber)],
  );
  return new Map(rows.map((r) => [r.ord - 1, Number(r.id)]));
}
