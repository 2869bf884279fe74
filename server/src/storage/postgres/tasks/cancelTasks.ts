import type { PoolClient } from 'pg';
import type { CancelOutcome, TaskState } from '../../EngineStore.js';
import { insertStatusAudits } from './insertStatusAudits.js';
import { taskStatusUpdate } from './taskStatusUpdate.js';
import { spillPendingOccurrences } from '../schedules/spillPendingOccurrences.js';
import { takesRowsAway } from '../connection/rowsTakenAway.js';

export const TASK_STATE_COLUMNS = `id, type, handler, request, queue, status, audit_level, parent_task_id,
  CASE WHEN occurrence_mode = 'Durable' AND parent_task_id IS NULL THEN 1 ELSE 0 END AS is_schedule`;

/** Pending, Queued or WaitingQueue → Cancelled (durable schedule rows are not cancellable here). */
export async function cancelTasks(c: PoolClient, ids: readonly string[], now: number): Promise<CancelOutcome[]> {
  if (ids.length === 0) return [];
  // A compact occurrence among them becomes its task row first (then cancelled as any Pending row).
  await spillPendingOccurrences(c, { ids });
  const { rows } = await c.query<TaskState>(`SELECT ${TASK_STATE_COLUMNS} FROM tasks WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`, [ids]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const cancellable = rows.filter((r) => r.is_schedule === 0 && ['Pending', 'Queued', 'WaitingQueue'].includes(r.status)).map((r) => r.id);
  const done = new Set<string>();
  if (cancellable.length > 0) {
    takesRowsAway(c);
    const res = await c.query<{ id: string }>(
      taskStatusUpdate({
        writer: 'cancelTasks', to: 'Cancelled', from: ['Pending', 'Queued', 'WaitingQueue'], set: 'throttled_until = NULL, reserved_by = NULL, reserved_at = NULL',
        where: 'id = ANY($1::text[])', returning: 't.id',
      }),
      [cancellable],
    );
    for (const r of res.rows) done.add(r.id);
    await insertStatusAudits(c, res.rows.map((r) => ({ taskId: r.id, level: byId.get(r.id)!.audit_level, at: now, status: 'Cancelled' as const })));
  }
  return ids.map((id): CancelOutcome => {
    const st = byId.get(id);
    if (!st) return { result: 'NotFound' };
    return done.has(id) ? { result: 'Cancelled', task: st } : { result: 'NotCancellable', task: st };
  });
}
