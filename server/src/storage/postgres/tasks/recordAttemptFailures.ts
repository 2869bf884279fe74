import type { PoolClient } from 'pg';
import type { AttemptFailure } from '../../EngineStore.js';

/** Failed attempts with retries left: the rows stay InProgress; attempt count and last error text kept (only on rows still carrying the run). */
export async function recordAttemptFailures(c: PoolClient, failures: readonly AttemptFailure[]): Promise<boolean[]> {
  if (failures.length === 0) return [];
  const { rows } = await c.query<{ id: string }>(
    `UPDATE tasks t SET attempt = f.attempt, exception = f.exception
       FROM unnest($1::text[], $2::int[], $3::text[], $4::text[]) AS f(id, attempt, exception, token)
      WHERE t.id = f.id AND t.status = 'InProgress' AND t.run_token = f.token RETURNING t.id`,
    [failures.map((f) => f.id), failures.map((f) => f.attempt), failures.map((f) => f.exception), failures.map((f) => f.token)],
  );
  const ok = new Set(rows.map((r) => r.id));
  return failures.map((f) => ok.has(f.id));
}
