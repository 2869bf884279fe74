import type { Database } from 'better-sqlite3';
import { changeTaskRow } from '../readModels/changeTaskRow.js';
import type { ReadModelDeltas } from '../readModels/readModelDeltas.js';
import { preparedStatement } from './preparedStatement.js';
import { priorStatusCondition } from '../../common/statusTransitions.js';

/** Pending/Queued/WaitingQueue → Cancelled. Returns false when the row had started meanwhile. */
export function cancelNotStartedTask(db: Database, deltas: ReadModelDeltas, id: string): boolean {
  return changeTaskRow(db, deltas, id, () =>
    preparedStatement(
      db,
      `UPDATE tasks SET status = 'Cancelled', throttled_until = NULL, reserved_by = NULL, reserved_at = NULL
        WHERE id = ? AND ${priorStatusCondition('cancelNotStartedTask', 'status', 'Cancelled', ['Pending', 'Queued', 'WaitingQueue'])}`,
    ).run(id).changes === 1,
  );
}
