import type { Database } from 'better-sqlite3';
import type { ClaimDecider } from '../EngineStore.js';
import type { StatusAuditWriter } from './insertStatusAudit.js';
import { prepareLimitedSelect } from './limitedSelect.js';
import type { ReadModelDeltas } from './readModels/ReadModelDeltas.js';
import { RUNNABLE_COLUMNS, type RunnableTaskRow } from './TaskRow.js';

export type { ClaimDecider };

/**
 * Queued → InProgress for up to `limit` of the oldest Queued rows of a queue whose type this
 * engine handles and that are not throttled. Over-budget rows get throttled_until and stay Queued.
 */
export function prepareClaimTasks(
  db: Database,
  audit: StatusAuditWriter,
): (
  queue: string,
  typesJson: string,
  limit: number,
  now: number,
  decide: ClaimDecider,
  handles: (type: string) => boolean,
  deltas: ReadModelDeltas,
) => RunnableTaskRow[] {
  const select = prepareLimitedSelect(db, (limit) => `SELECT ${RUNNABLE_COLUMNS} FROM tasks
    WHERE queue = ? AND status = 'Queued' AND (throttled_until IS NULL OR throttled_until <= ?)
      AND type IN (SELECT value FROM json_each(?))
    ORDER BY created_at LIMIT ${limit}`);
  // Fast path: the oldest rows of the queue, whatever their type; used when all of them are handled here.
  const selectAny = prepareLimitedSelect(db, (limit) => `SELECT ${RUNNABLE_COLUMNS} FROM tasks
    WHERE queue = ? AND status = 'Queued' AND (throttled_until IS NULL OR throttled_until <= ?)
    ORDER BY created_at LIMIT ${limit}`);
  const start = db.prepare(`UPDATE tasks SET status = 'InProgress', started_at = ?, throttled_until = NULL
    WHERE id = ? AND status = 'Queued'`);
  const throttle = db.prepare(`UPDATE tasks SET throttled_until = ? WHERE id = ? AND status = 'Queued'`);
  return (queue, typesJson, limit, now, decide, handles, deltas) => {
    const claimed: RunnableTaskRow[] = [];
    const candidates = (n: number): RunnableTaskRow[] => {
      const rows = selectAny(n, queue, now) as RunnableTaskRow[];
      if (rows.every((r) => handles(r.type))) return rows;
      return select(n, queue, now, typesJson) as RunnableTaskRow[];
    };
    // Throttled candidates leave the window of the next select, so this terminates.
    for (let round = 0; round < 16 && claimed.length < limit; round++) {
      const rows = candidates(limit - claimed.length);
      if (rows.length === 0) break;
      let throttled = 0;
      for (const r of rows) {
        const verdict = decide(r);
        if (verdict === true) {
          if (start.run(now, r.id).changes === 1) {
            audit(r.id, r.audit_level, now, 'InProgress');
            deltas.moved({ ...r, is_occurrence: r.parent_task_id === null ? 0 : 1 }, 'Queued', 'InProgress');
            r.status = 'InProgress';
            claimed.push(r);
          }
        } else {
          throttle.run(verdict, r.id);
          throttled++;
        }
      }
      if (throttled === 0) break;
    }
    return claimed;
  };
}
