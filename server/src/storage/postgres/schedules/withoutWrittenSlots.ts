import type { PoolClient } from 'pg';
import type { NewOccurrence } from '../../EngineStore.js';

/**
 * Where a schedule's slots may already be written (migration 19: an occurrence is a task row or a
 * compact row, never both).
 * - 'tasks': task rows, by the (parent_task_id, nominal_slot_at) index;
 * - 'compact': compact occurrences, by the (schedule_ref, nominal_slot_at) index.
 */
export type WrittenForm = 'tasks' | 'compact';

/**
 * `rows` without the occurrences whose slot its schedule already has in form `form` (the same rule
 * as SQLite's `withoutWrittenSlots`): each form's unique slot index skips a slot written in that
 * form only. One statement: a range read per schedule over its slot index (the slots between the
 * first and the last of `rows`). Answers `rows` itself when nothing is dropped.
 */
export async function withoutWrittenSlots(c: PoolClient, rows: NewOccurrence[], form: WrittenForm): Promise<NewOccurrence[]> {
  const ranges = new Map<string, { from: number; to: number }>();
  for (const r of rows) {
    const range = ranges.get(r.parentTaskId);
    if (range === undefined) ranges.set(r.parentTaskId, { from: r.nominalSlotAt, to: r.nominalSlotAt });
    else {
      range.from = Math.min(range.from, r.nominalSlotAt);
      range.to = Math.max(range.to, r.nominalSlotAt);
    }
  }
  if (ranges.size === 0) return rows;
  const matches = form === 'tasks'
    ? `SELECT t.parent_task_id AS id, t.nominal_slot_at AS slot FROM r JOIN tasks t
         ON t.parent_task_id = r.id AND t.nominal_slot_at BETWEEN r.lo AND r.hi`
    : `SELECT r.id, p.nominal_slot_at AS slot FROM r JOIN occurrence_schedules s ON s.schedule_id = r.id
         JOIN pending_occurrences p ON p.schedule_ref = s.ref AND p.nominal_slot_at BETWEEN r.lo AND r.hi`;
  const { rows: written } = await c.query<{ id: string; slot: string }>(
    `WITH r AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS r(id, lo, hi)) ${matches}`,
    [[...ranges.keys()], [...ranges.values()].map((v) => v.from), [...ranges.values()].map((v) => v.to)],
  );
  if (written.length === 0) return rows;
  const slots = new Set(written.map((w) => `${w.id}/${Number(w.slot)}`));
  return rows.filter((r) => !slots.has(`${r.parentTaskId}/${r.nominalSlotAt}`));
}
