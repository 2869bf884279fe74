import type { Database } from 'better-sqlite3';
import type { NewOccurrence } from '../../EngineStore.js';
import type { CompactParent } from './insertCompactOccurrences.js';
import { preparedStatement } from './preparedStatement.js';

/**
 * Where a schedule's slots are already written in the other form than the one about to be
 * written (migration 15: an occurrence is a task row or a compact row, never both).
 * - 'tasks': task rows, by the (parent_task_id, nominal_slot_at) index;
 * - 'compact': compact occurrences, by the (schedule_ref, nominal_slot_at) index.
 */
export type WrittenForm = 'tasks' | 'compact';

/**
 * `rows` without the occurrences whose slot its schedule already has in form `form`: each form's
 * unique slot index skips a slot written in that form only, and an engine whose view of a
 * schedule's cursor is older (another connection's catch-up, a cursor moved back) would otherwise
 * write a slot twice, once each way. One range read per schedule over its slot index (the slots
 * between the first and the last of `rows`; after a catch-up they hold none or a few). Answers
 * `rows` itself when nothing is dropped.
 */
export function withoutWrittenSlots(
  db: Database,
  rows: NewOccurrence[],
  parents: ReadonlyMap<string, CompactParent>,
  form: WrittenForm,
): NewOccurrence[] {
  const ranges = new Map<string, { from: number; to: number }>();
  for (const r of rows) {
    const range = ranges.get(r.parentTaskId);
    if (range === undefined) ranges.set(r.parentTaskId, { from: r.nominalSlotAt, to: r.nominalSlotAt });
    else {
      range.from = Math.min(range.from, r.nominalSlotAt);
      range.to = Math.max(range.to, r.nominalSlotAt);
    }
  }
  const select = form === 'tasks'
    ? preparedStatement(db, 'SELECT nominal_slot_at FROM tasks WHERE parent_task_id = ? AND nominal_slot_at BETWEEN ? AND ?').pluck()
    : preparedStatement(db, 'SELECT nominal_slot_at FROM pending_occurrences WHERE schedule_ref = ? AND nominal_slot_at BETWEEN ? AND ?').pluck();
  const written = new Map<string, Set<number>>();
  for (const [scheduleId, range] of ranges) {
    const key = form === 'tasks' ? scheduleId : parents.get(scheduleId)!.ref;
    const slots = select.all(key, range.from, range.to) as number[];
    if (slots.length > 0) written.set(scheduleId, new Set(slots));
  }
  if (written.size === 0) return rows;
  return rows.filter((r) => written.get(r.parentTaskId)?.has(r.nominalSlotAt) !== true);
}
