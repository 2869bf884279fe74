import type { PoolClient } from 'pg';
import type { InsertOutcome, NewTask } from '../../EngineStore.js';
import type { QueueAdmission } from '../coordination/queueAdmission.js';
import { dueOnInsert } from '../../common/dueOnInsert.js';
import { insertStatusAudits } from './insertStatusAudits.js';

const OPEN_KEY_PREDICATE = `task_key IS NOT NULL AND status NOT IN ('Completed', 'Failed', 'Cancelled')
  AND NOT (is_recurring = 1 AND occurrence_mode IS NOT DISTINCT FROM 'Durable' AND parent_task_id IS NULL)`;

/**
 * New tasks: a keyed task whose key has an open row returns that row (its request, due time and
 * recurrence replaced when it is Pending); the partial unique index on open keys settles two
 * instances dispatching the same key at once. The first status: Pending when not yet due or
 * inline recurring (dueOnInsert), else Queued (WaitingQueue when the queue is at capacity).
 * `retry`: the batch may already have been stored by a commit whose answer was lost; a row whose id
 * exists is then reported as stored by this call (with its status), not written twice.
 */
export async function insertTasks(
  c: PoolClient, tasks: readonly NewTask[], now: number, admission: QueueAdmission, retry = false,
): Promise<InsertOutcome[]> {
  const out: InsertOutcome[] = new Array(tasks.length);
  const fresh: { i: number; t: NewTask; status: 'Pending' | 'Queued' | 'WaitingQueue' }[] = [];
  for (let i = 0; i < tasks.length; i++) {
    const t = tasks[i]!;
    if (t.taskKey !== null) {
      out[i] = await insertKeyed(c, t, now, admission);
      continue;
    }
    fresh.push({ i, t, status: dueOnInsert(t, now) ? await admission.admit(t.queue) : 'Pending' });
  }
  if (fresh.length > 0 && retry) {
    const { rows } = await c.query<{ id: string; status: InsertOutcome['status'] }>(`SELECT id, status FROM tasks WHERE id = ANY($1::text[])`, [
      fresh.map((f) => f.t.id),
    ]);
    const stored = new Map(rows.map((r) => [r.id, r.status]));
    for (let k = fresh.length - 1; k >= 0; k--) {
      const f = fresh[k]!;
      const status = stored.get(f.t.id);
      if (status === undefined) continue;
      out[f.i] = { id: f.t.id, existing: false, status };
      fresh.splice(k, 1);
    }
  }
  if (fresh.length > 0) {
    await insertRows(c, fresh.map((f) => ({ t: f.t, status: f.status })), false);
    await insertStatusAudits(c, fresh.map((f) => ({ taskId: f.t.id, level: f.t.auditLevel, at: f.t.createdAt, status: f.status })));
    for (const f of fresh) out[f.i] = { id: f.t.id, existing: false, status: f.status };
  }
  return out;
}

async function insertKeyed(c: PoolClient, t: NewTask, now: number, admission: QueueAdmission): Promise<InsertOutcome> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const { rows } = await c.query<{ id: string; status: InsertOutcome['status'] }>(
      `SELECT id, status FROM tasks WHERE task_key = $1 AND ${OPEN_KEY_PREDICATE} ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
      [t.taskKey],
    );
    const open = rows[0];
    // Its own row: stored by an earlier attempt of this commit whose answer was lost.
    if (open && open.id === t.id) return { id: t.id, existing: false, status: open.status };
    if (open) {
      if (open.status === 'Pending') {
        await c.query(`UPDATE tasks SET request = $1, scheduled_at = $2, recurrence = COALESCE($3, recurrence) WHERE id = $4 AND status = 'Pending'`, [
          t.request, t.dueAt, t.recurrence, open.id,
        ]);
      }
      return { id: open.id, existing: true, status: open.status };
    }
    const status = dueOnInsert(t, now) ? await admission.admit(t.queue) : 'Pending';
    // Another instance may insert the same key meanwhile: the unique index keeps one, we look again.
    if (await insertRows(c, [{ t, status }], true)) {
      await insertStatusAudits(c, [{ taskId: t.id, level: t.auditLevel, at: t.createdAt, status }]);
      return { id: t.id, existing: false, status };
    }
  }
  throw new Error(`insertTasks: the task key "${t.taskKey}" kept changing hands`);
}

/** One INSERT of many rows; with `onKeyConflict`, a row whose open key exists is skipped (false). */
async function insertRows(c: PoolClient, rows: readonly { t: NewTask; status: string }[], onKeyConflict: boolean): Promise<boolean> {
  const col = <T>(f: (t: NewTask) => T) => rows.map((r) => f(r.t));
  const res = await c.query(
    `INSERT INTO tasks (id, type, handler, request, queue, status, task_key, audit_level, created_at, scheduled_at,
                        retry_policy, timeout_ms, rate_limit_key, is_recurring, recurrence, traceparent, tracestate)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                          $9::bigint[], $10::bigint[], $11::text[], $12::bigint[], $13::text[], $14::int[], $15::text[],
                          $16::text[], $17::text[])
     ${onKeyConflict ? `ON CONFLICT (task_key) WHERE ${OPEN_KEY_PREDICATE} DO NOTHING` : ''}`,
    [
      col((t) => t.id), col((t) => t.type), col((t) => t.handler), col((t) => t.request), col((t) => t.queue), rows.map((r) => r.status),
      col((t) => t.taskKey), col((t) => t.auditLevel), col((t) => t.createdAt), col((t) => t.scheduledAt), col((t) => t.retryPolicy),
      col((t) => t.timeoutMs), col((t) => t.rateLimitKey), col((t) => (t.isRecurring ? 1 : 0)), col((t) => t.recurrence),
      col((t) => t.traceparent ?? null), col((t) => t.tracestate ?? null),
    ],
  );
  return (res.rowCount ?? 0) === rows.length;
}
