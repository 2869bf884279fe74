import type { Database } from 'better-sqlite3';
import type { TaskStatus } from '../../../contracts/task.js';
import { checkTransition } from '../../common/statusTransitions.js';
import type { ReadModelDeltas } from './readModelDeltas.js';
import { selectTaskFacts } from './selectTaskFacts.js';

/**
 * Runs `change` (one write to the task row `id`; true when it changed the row) and records in
 * `deltas` whatever it changed for the read models, by reading the row before and after.
 * For the writers off the hot path (schedule definitions, cancels, requeues), where a second
 * read of one row by its key costs nothing that matters. With `to` (the status `change` writes),
 * a row whose status may not move there is not changed: the refusal is reported (false).
 */
export function changeTaskRow(db: Database, deltas: ReadModelDeltas, id: string, change: () => boolean, to?: TaskStatus): boolean {
  const before = selectTaskFacts(db, id);
  if (to !== undefined && before !== undefined && !checkTransition('changeTaskRow', before.status, to, [id])) return false;
  if (!change()) return false;
  const after = selectTaskFacts(db, id);
  if (after !== undefined) deltas.changed(before, after);
  return true;
}
