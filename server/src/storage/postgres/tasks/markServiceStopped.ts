import type { PoolClient } from 'pg';
import type { StoppedRun } from '../../EngineStore.js';
import { insertStatusAudits } from './insertStatusAudits.js';
import { taskStatusUpdate } from './taskStatusUpdate.js';

/**
 * InProgress → ServiceStopped: the engine stopped and the runs did not finish within the grace
 * period. Only rows still carrying the run (its token). The row keeps its instance: no other
 * instance takes it while that instance's lease is alive (its handler may still run), and one
 * takes it once the instance is gone (see recoverExpiredLeases).
 */
export async function markServiceStopped(c: PoolClient, runs: readonly StoppedRun[], now: number): Promise<boolean[]> {
  if (runs.length === 0) return [];
  const { rows } = await c.query<{ id: string }>(
    taskStatusUpdate({
      writer: 'markServiceStopped', to: 'ServiceStopped', from: ['InProgress'],
      using: 'unnest($1::text[], $2::text[]) AS r(id, token)', where: 't.id = r.id AND t.run_token = r.token', returning: 't.id',
    }),
    [runs.map((r) => r.id), runs.map((r) => r.token)],
  );
  const ok = new Set(rows.map((r) => r.id));
  await insertStatusAudits(c, runs.filter((r) => ok.has(r.id)).map((r) => ({ taskId: r.id, level: r.auditLevel, at: now, status: 'ServiceStopped' as const })));
  return runs.map((r) => ok.has(r.id));
}
