import type { Database } from 'better-sqlite3';
import type { ClaimDecider } from '../../EngineStore.js';
import { prepareLimitedSelect } from './limitedSelect.js';
import { CLAIMABLE, KEYED_RUNNABLE_COLUMNS, keyedRunnableRow, type KeyedRunnableRow, type RunnableTaskRow } from './TaskRow.js';

export type { ClaimDecider };


/**
 * Reserves (see claimTasksAtOnce) up to `limit` of the oldest claimable Queued rows of a queue
 * whose type this engine handles, asking the decider (rate limits) for each: a row it refuses gets
 * throttled_until instead and stays Queued, unreserved.
 */
export function prepareClaimTasks(
  db: Database,
  instanceId: string,
): (
  queue: string,
  typesJson: string,
  limit: number,
  now: number,
  reservationMs: number,
  decide: ClaimDecider,
  handles: (type: string) => boolean,
) => RunnableTaskRow[] {
  const select = prepareLimitedSelect(db, (limit) => `SELECT ${KEYED_RUNNABLE_COLUMNS} FROM tasks
    WHERE queue = ? AND ${CLAIMABLE}
      AND type IN (SELECT value FROM json_each(?))
    ORDER BY created_at, rowid LIMIT ${limit}`, true);
  // Fast path: the oldest rows of the queue, whatever their type; used when all of them are handled here.
  const selectAny = prepareLimitedSelect(db, (limit) => `SELECT ${KEYED_RUNNABLE_COLUMNS} FROM tasks
    WHERE queue = ? AND ${CLAIMABLE}
    ORDER BY created_at, rowid LIMIT ${limit}`, true);
  const reserve = db.prepare(`UPDATE tasks SET reserved_by = ?, reserved_at = ?, throttled_until = NULL
    WHERE rowid = ? AND status = 'Queued'`);
  const throttle = db.prepare(`UPDATE tasks SET throttled_until = ? WHERE rowid = ? AND status = 'Queued'`);
  const keyed = (v: unknown[]) => keyedRunnableRow(v, instanceId);
  return (queue, typesJson, limit, now, reservationMs, decide, handles) => {
    const heldSince = now - reservationMs;
    const claimed: RunnableTaskRow[] = [];
    const candidates = (n: number): KeyedRunnableRow[] => {
      const rows = (selectAny(n, queue, now, heldSince) as unknown[][]).map(keyed);
      if (rows.every((r) => handles(r.type))) return rows;
      return (select(n, queue, now, heldSince, typesJson) as unknown[][]).map(keyed);
    };
    // Throttled candidates leave the window of the next select, so this terminates.
    for (let round = 0; round < 16 && claimed.length < limit; round++) {
      const rows = candidates(limit - claimed.length);
      if (rows.length === 0) break;
      let throttled = 0;
      for (const r of rows) {
        r.reserved_at = now; // the instant the decider counts
        const verdict = decide(r);
        if (verdict === true) {
          if (reserve.run(instanceId, now, r.row_key).changes === 1) claimed.push(r);
        } else {
          throttle.run(verdict, r.row_key);
          throttled++;
        }
      }
      if (throttled === 0) break;
    }
    return claimed;
  };
}
