import type { Database } from 'better-sqlite3';
import type { TaskStatus } from '../../../contracts/index.js';
import { preparedStatement } from '../schedules/preparedStatement.js';
import type { ReadModelDeltas } from '../readModels/readModelDeltas.js';
import { managedGroup } from './managedGroup.js';
import type { ManagedTaskRow } from '../../common/ManagedTaskRow.js';
import { checkTransition } from '../../common/statusTransitions.js';

/**
 * A finished row back to Queued, due now, attempts and throttle reset, same id; history and
 * the last error text are kept. Only from `row.status` (read in the same transaction) and only
 * when that is one of `from` (false: the row has moved on). The move goes into `deltas`.
 */
export function requeueTaskNow(db: Database, deltas: ReadModelDeltas, row: ManagedTaskRow, from: readonly TaskStatus[], nowMs: number): boolean {
  if (!from.includes(row.status) || !checkTransition('requeueTaskNow', row.status, 'Queued', [row.id])) return false;
  const changed = preparedStatement(
    db,
    `UPDATE tasks SET status = 'Queued', scheduled_at = ?, attempt = 0, abandoned_count = 0, throttled_until = NULL, reserved_by = NULL, reserved_at = NULL WHERE id = ? AND status = ?`,
  ).run(nowMs, row.id, row.status).changes === 1;
  if (changed) deltas.moved(managedGroup(row), row.status, 'Queued');
  return changed;
}
