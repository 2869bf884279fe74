import { PENDING_OCCURRENCE_TASKS } from './pendingOccurrenceReads.js';
import type { ReadDb } from './ReadDb.js';
import type { TaskListWhere } from './taskListWhere.js';

/**
 * How compact occurrences sort by a task-list sort column. Rules:
 * - `created_at` and `scheduled_at` are the compact row's own columns, each read in order from an
 *   index whose entries end with seq (migrations 16 and 15), so a page is the index's first entries;
 * - status, start, last run and execution time are the same for every compact occurrence
 *   (Pending; never run): they do not order compact rows among themselves and are left out;
 * - type and queue are the schedule's: read group by group (`GROUP_COLUMNS`), a group's rows by
 *   their schedules' numbers;
 * - the task row's insertion order (`rowid`) is seq's order (the view's rowid is 2^40 + seq).
 */
const OWN_COLUMNS = new Set(['created_at', 'scheduled_at']);
const CONSTANT_COLUMNS = new Set(['status', 'started_at', 'last_execution_at', 'execution_time_ms']);
const GROUP_COLUMNS = new Set(['type', 'queue']);

/**
 * The seqs of the first `wanted` compact occurrences the view's `where` matches, in the list's
 * order (`orderColumns`, then insertion order). Never a sort of every compact row: the rows come
 * from an index in order; a sort by type or queue reads the groups (the values the schedules of
 * the compact rows have, a few) in order, each group's rows by creation time in order, until
 * `wanted` rows are read.
 */
export async function compactPageSeqs(db: ReadDb, where: TaskListWhere, orderColumns: readonly string[], desc: boolean, wanted: number): Promise<number[]> {
  const dir = desc ? 'DESC' : 'ASC';
  const group = orderColumns.find((c) => GROUP_COLUMNS.has(c));
  const keys = orderColumns.filter((c) => OWN_COLUMNS.has(c));
  for (const c of orderColumns) {
    if (!OWN_COLUMNS.has(c) && !CONSTANT_COLUMNS.has(c) && !GROUP_COLUMNS.has(c)) throw new Error(`compact occurrences have no order for ${c}`);
  }
  const order = [...keys, 'seq'].map((c) => `${c} ${dir}`).join(', ');
  const base = where.sql(false);
  const { jsonIntegerArray, jsonIntegers, unhinted } = db.dialect;
  const seqsOf = async (extra: string, extraParams: readonly unknown[], limit: number) => {
    const cond = extra === '' ? base : base === '' ? `WHERE ${extra}` : `${base} AND ${extra}`;
    const rows = await db.query<{ seq: number }>(`SELECT seq FROM ${PENDING_OCCURRENCE_TASKS} ${cond} ORDER BY ${order} LIMIT ?`, [
      ...where.params,
      ...extraParams,
      limit,
    ]);
    return rows.map((r) => r.seq);
  };
  if (group === undefined || orderColumns[0] !== group) return seqsOf('', [], wanted);
  // The group values of the schedules that have compact rows, in the list's order (type and queue
  // hold no NULL), each with its schedules' numbers.
  const groups = await db.query<{ refs: string }>(
    `SELECT s.${group} AS g, ${jsonIntegerArray('r.ref')} AS refs FROM occurrence_schedules r JOIN tasks s ON s.id = r.schedule_id
      WHERE EXISTS (SELECT 1 FROM pending_occurrences p WHERE p.schedule_ref = r.ref) GROUP BY g ORDER BY g ${dir}`,
  );
  const seqs: number[] = [];
  for (const { refs } of groups) {
    if (seqs.length >= wanted) break;
    // The group's rows walked in the sort index's order, matched by their own schedule number
    // (unhinted: not collected through the slot index and sorted).
    seqs.push(...(await seqsOf(`${unhinted('schedule_ref')} IN (${jsonIntegers})`, [refs], wanted - seqs.length)));
  }
  return seqs;
}
