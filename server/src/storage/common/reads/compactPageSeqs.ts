import { BLOCK_SEQS, compactBlockPage, compactRowsOf, type BlockSchedules } from './compactSeqBlocks.js';
import { PENDING_OCCURRENCE_TASKS } from './pendingOccurrenceReads.js';
import type { ReadDb } from './ReadDb.js';
import type { TaskListWhere } from './taskListWhere.js';

/**
 * How compact occurrences sort by a task-list sort column. Rules:
 * - `created_at` and `scheduled_at` are the compact row's own columns, each read in order from an
 *   index whose entries end with seq (migrations 16 and 15), so a page is the index's first entries;
 * - status, start, last run and execution time are the same for every compact occurrence
 *   (Pending; never run): they do not order compact rows among themselves and are left out;
 * - type and queue are the schedule's: read group by group (`GROUP_COLUMNS`), in the group's order;
 * - the task row's insertion order (`rowid`) is seq's order (the view's rowid is 2^40 + seq).
 */
const OWN_COLUMNS = new Set(['created_at', 'scheduled_at']);
const CONSTANT_COLUMNS = new Set(['status', 'started_at', 'last_execution_at', 'execution_time_ms']);
const GROUP_COLUMNS = new Set(['type', 'queue']);

/** Each schedule's compact rows in creation order (migration 19 on SQLite, 20 on PostgreSQL). */
const SCHEDULE_INDEX: Record<string, string> = { created_at: 'ix_pending_occurrences_schedule_created' };

/**
 * How many index entries a per-schedule merge may read (and sort) before walking the list's
 * index past other schedules' rows is chosen instead.
 */
const MERGE_ENTRIES = 50_000;
/** A merge this small is read at once (a few schedules' first rows). */
const SMALL_MERGE_ENTRIES = 20_000;
/**
 * Past this many rows from the list's start, a page in creation-time order or seq order is found
 * by the counts of blocks of seqs (`compactSeqBlocks.ts`) rather than by reading the rows before it.
 */
const BLOCKS_FROM = 1_000;

/**
 * Which compact rows a list reads and how. `plain`: every condition of the view's WHERE is either
 * a schedule's (queue, type, parent, its request) or the same for every compact occurrence
 * (status, recurring, occurrence), so a schedule's rows all match or none do; a condition on a
 * row's own columns (creation time, handler, catch-up) is read row by row (`plain` false).
 */
export interface CompactScope {
  where: TaskListWhere;
  plain: boolean;
  /** No condition names a schedule's column: with `plain`, every compact row matches. */
  everySchedule: boolean;
}

/**
 * The columns of the view a plain WHERE can name (status, queue, type, recurring, occurrence, the
 * parent: its request match is a condition on it), as the view computes them, once a schedule.
 */
const SCHEDULE_COLUMNS = `r.ref AS schedule_ref, s.id AS parent_task_id, s.type AS type, s.queue AS queue, 'Pending' AS status, 0 AS is_recurring, 1 AS is_occurrence`;

/**
 * Which schedules have compact rows (`withRows`, those in `occurrence_schedules` with a row), and
 * those a plain WHERE matches, with their group value, in the list's order of groups then ref.
 * Rules:
 * - a schedule has compact rows while a block of its seqs counts one (`compact_seq_blocks`, written
 *   with the rows); without that table, while its slot index holds an entry;
 * - the WHERE is read on one row a schedule with the view's values for every compact row of it
 *   (`SCHEDULE_COLUMNS`): a plain WHERE names only those, so it matches a schedule's row exactly
 *   when it matches each of its compact rows; a schedule whose task row is gone has none in the view;
 * - one statement over the schedules (about as many rows as schedules), not a seek into the compact
 *   table and a view row a schedule (at 1,000 schedules and 1.44 M compact rows, those took most
 *   of a small group's page on PostgreSQL).
 */
async function compactSchedules(db: ReadDb, where: TaskListWhere, group: string | undefined, dir: 'ASC' | 'DESC'): Promise<{ withRows: number; matching: { ref: number; g: string | null }[] }> {
  const has = db.features.compactSeqBlocks
    ? 'EXISTS (SELECT 1 FROM compact_seq_blocks b WHERE b.schedule_ref = r.ref AND b.n > 0)'
    : 'EXISTS (SELECT 1 FROM pending_occurrences q WHERE q.schedule_ref = r.ref)';
  const base = where.sql(false);
  const cond = `WHERE parent_task_id IS NOT NULL${base === '' ? '' : ` AND ${base.replace(/^WHERE /, '')}`}`;
  const rows = await db.query<{ ref: number | string; g: string | null; with_rows: number | string }>(
    `WITH v AS MATERIALIZED (SELECT ${SCHEDULE_COLUMNS} FROM occurrence_schedules r LEFT JOIN tasks s ON s.id = r.schedule_id WHERE ${has})
     SELECT schedule_ref AS ref, ${group ?? 'NULL'} AS g, (SELECT COUNT(*) FROM v) AS with_rows FROM v ${cond} ORDER BY g ${dir}, ref`,
    where.params,
  );
  return { withRows: rows.length === 0 ? 0 : Number(rows[0]!.with_rows), matching: rows.map((r) => ({ ref: Number(r.ref), g: r.g })) };
}

/**
 * The seqs of the compact occurrences at positions [skip, skip+take) of those the view's `where`
 * matches, in the list's order (`orderColumns`, then insertion order). Never a sort of every
 * compact row, and never the skipped rows read out of the database:
 * - no schedule-column order and every schedule matching: the list's index, from its start;
 * - a sort by type or queue: the groups of matching schedules in order, skipping a whole group by
 *   its count of rows;
 * - within a group (or all matching schedules, when only some match): each schedule's first rows
 *   by its creation-time index, merged (`eachRows`); in due or seq order, every row of those
 *   schedules by the slot index in one read, sorted to the page; or the list's index walked
 *   keeping the chosen schedules' rows, whichever reads fewer entries (`read`).
 * - in creation-time order or seq order, a page past the list's first BLOCKS_FROM rows, or a group
 *   whose merge would read more than a block of seqs, is found by the counts of compact rows per
 *   block of seqs (`compactSeqBlocks.ts`), reading only the blocks that hold it.
 * With `plain` false the matching schedules are not known ahead: the list's index is walked with
 * the WHERE applied to each row, group by group for a sort by type or queue.
 */
export async function compactPageSeqs(db: ReadDb, scope: CompactScope, orderColumns: readonly string[], desc: boolean, skip: number, take: number): Promise<number[]> {
  const { where, plain } = scope;
  const dir = desc ? 'DESC' : 'ASC';
  const group = orderColumns.find((c) => GROUP_COLUMNS.has(c));
  const keys = orderColumns.filter((c) => OWN_COLUMNS.has(c));
  for (const c of orderColumns) {
    if (!OWN_COLUMNS.has(c) && !CONSTANT_COLUMNS.has(c) && !GROUP_COLUMNS.has(c)) throw new Error(`compact occurrences have no order for ${c}`);
  }
  const groupFirst = group !== undefined && orderColumns[0] === group;
  const order = (alias: string) => [...keys, 'seq'].map((c) => `${alias}${c} ${dir}`).join(', ');
  const base = where.sql(false);
  const { jsonIntegerArray, jsonIntegers, amongIntegers, unhinted, eachRows } = db.dialect;
  const seqs = (rows: { seq: number | string }[]) => rows.map((r) => Number(r.seq));

  if (!plain) {
    // Row by row: the list's index walked with the WHERE on each row (the view), group by group.
    const walk = async (extra: string, extraParams: readonly unknown[], limit: number, offset: number) => {
      const cond = extra === '' ? base : base === '' ? `WHERE ${extra}` : `${base} AND ${extra}`;
      return seqs(await db.query(`SELECT seq FROM ${PENDING_OCCURRENCE_TASKS} ${cond} ORDER BY ${order('')} LIMIT ? OFFSET ?`, [...where.params, ...extraParams, limit, offset]));
    };
    if (!groupFirst) return walk('', [], take, skip);
    const groups = await db.query<{ refs: string }>(
      `SELECT s.${group} AS g, ${jsonIntegerArray('r.ref')} AS refs FROM occurrence_schedules r JOIN tasks s ON s.id = r.schedule_id
        WHERE EXISTS (SELECT 1 FROM pending_occurrences p WHERE p.schedule_ref = r.ref) GROUP BY g ORDER BY g ${dir}`,
    );
    const out: number[] = [];
    const wanted = skip + take;
    for (const { refs } of groups) {
      if (out.length >= wanted) break;
      // (unhinted: the group's rows walked in the sort index's order, not collected through the slot index and sorted)
      for (const s of await walk(`${unhinted('schedule_ref')} IN (${jsonIntegers})`, [refs], wanted - out.length, 0)) out.push(s);
    }
    return out.slice(skip, skip + take);
  }

  // Creation-time order then seq, or seq order alone: the orders the blocks of seqs are counted in.
  const blockOrder = db.features.compactSeqBlocks && (keys.length === 0 || (keys.length === 1 && keys[0] === 'created_at'));
  const byBlocks = (refs: BlockSchedules, limit: number, offset: number) =>
    blockOrder && offset + limit > BLOCKS_FROM ? compactBlockPage(db, refs, keys.length > 0, desc, offset, limit) : undefined;
  if (scope.everySchedule && !groupFirst) {
    const counted = await byBlocks('every', take, skip);
    if (counted !== undefined) return counted;
    return seqs(await db.query(`SELECT p.seq AS seq FROM pending_occurrences p ORDER BY ${order('p.')} LIMIT ? OFFSET ?`, [take, skip]));
  }
  // The schedules with compact rows, and those the WHERE matches, in one statement that reads no
  // compact row (`compactSchedules`).
  const { withRows, matching } = await compactSchedules(db, where, groupFirst ? group : undefined, dir);
  if (matching.length === 0) return [];
  // The matching schedules by group value, in the list's order (one group without a group sort).
  const groups: number[][] = [];
  let last: string | null | undefined;
  for (const s of matching) {
    if (groups.length === 0 || s.g !== last) groups.push([]);
    groups[groups.length - 1]!.push(Number(s.ref));
    last = s.g;
  }

  const index = keys.length === 0 ? undefined : SCHEDULE_INDEX[keys[0]!];
  // A schedule's first `limit` rows in creation order, by its index in that order.
  const perSchedule = (value: string) => `SELECT q.seq FROM pending_occurrences q WHERE q.schedule_ref = ${value} ORDER BY ${order('q.')} LIMIT ?`;
  const span = async () => {
    const [r] = await db.query<{ lo: number | string | null; hi: number | string | null }>(
      `SELECT (SELECT MIN(seq) FROM pending_occurrences) AS lo, (SELECT MAX(seq) FROM pending_occurrences) AS hi`,
    );
    return r?.lo === null || r?.lo === undefined || r.hi === null ? 0 : Number(r.hi) - Number(r.lo) + 1;
  };
  let rowsPerSchedule: number | undefined;

  const read = async (refs: number[], limit: number, offset: number): Promise<number[]> => {
    const wanted = limit + offset;
    const counted = await byBlocks(refs, limit, offset);
    if (counted !== undefined) return counted;
    if (refs.length === withRows) {
      return seqs(await db.query(`SELECT p.seq AS seq FROM pending_occurrences p ORDER BY ${order('p.')} LIMIT ? OFFSET ?`, [limit, offset]));
    }
    rowsPerSchedule ??= Math.max(1, Math.ceil((await span()) / withRows));
    // A merge that would read more entries than a block of seqs holds: the group's first block(s) instead.
    if (blockOrder && refs.length * (index === undefined ? rowsPerSchedule : Math.min(wanted, rowsPerSchedule)) > BLOCK_SEQS) {
      return compactBlockPage(db, refs, keys.length > 0, desc, offset, limit);
    }
    // A merge reads `wanted` entries a schedule in creation order (every row of each in another
    // order: at most the span of seqs over the schedules with rows, a schedule) and sorts
    // them. A walk reads the list's index and each entry's schedule until it has `wanted` of the
    // chosen schedules' rows: short when they are spread through the index, the whole index when
    // a catch-up wrote them at its far end. So: a small merge at once; a merge of at most
    // MERGE_ENTRIES after a walk of at most as many entries has not found the page; past that,
    // the walk (a sort of that many entries costs more than walking past them).
    rowsPerSchedule ??= Math.max(1, Math.ceil((await span()) / withRows));
    const merged = refs.length * (index === undefined ? rowsPerSchedule : Math.min(wanted, rowsPerSchedule));
    const list = JSON.stringify(refs);
    // In due order or seq order no index holds a schedule's rows in the list's order: each of
    // their rows is read whichever way, so all of them at once (by the slot index, every table
    // page once) and one sort cut to the page, not a sort a schedule and a sort of their firsts.
    // The sort keys are expressions (+ 0), so that no planner walks the whole due or seq index.
    const merge = async () =>
      seqs(
        await db.query(
          index === undefined
            ? `SELECT m.seq AS seq FROM pending_occurrences m ${db.dialect.indexedBy('ux_pending_occurrences_slot')} WHERE ${amongIntegers('m.schedule_ref')}
                ORDER BY ${[...keys, 'seq'].map((c) => `m.${c} + 0 ${dir}`).join(', ')} LIMIT ? OFFSET ?`
            : `SELECT x.seq AS seq FROM ${eachRows('pending_occurrences', 'seq', perSchedule)} ORDER BY ${order('x.')} LIMIT ? OFFSET ?`,
          index === undefined ? [list, limit, offset] : [list, wanted, limit, offset],
        ),
      );
    if (merged <= SMALL_MERGE_ENTRIES) return merge();
    const walk = async () =>
      seqs(await db.query(`SELECT p.seq AS seq FROM pending_occurrences p WHERE ${unhinted('p.schedule_ref')} IN (${jsonIntegers}) ORDER BY ${order('p.')} LIMIT ? OFFSET ?`, [list, limit, offset]));
    if (merged > MERGE_ENTRIES) return walk();
    const bounded = seqs(
      await db.query(
        `SELECT w.seq AS seq FROM (SELECT ${['seq', ...keys].map((c) => `p.${c} AS ${c}`).join(', ')}, p.schedule_ref AS ref FROM pending_occurrences p ORDER BY ${order('p.')} LIMIT ?) AS w
          WHERE w.ref IN (${jsonIntegers}) ORDER BY ${order('w.')} LIMIT ? OFFSET ?`,
        [merged, list, limit, offset],
      ),
    );
    return bounded.length === limit ? bounded : merge();
  };

  const out: number[] = [];
  let toSkip = skip;
  for (const refs of groups) {
    if (out.length >= take) break;
    if (toSkip > 0 && groups.length > 1) {
      // A group wholly before the page is skipped by its count (its schedules' blocks' counts, or their index ranges).
      const n = db.features.compactSeqBlocks
        ? await compactRowsOf(db, refs)
        : Number((await db.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM pending_occurrences WHERE schedule_ref IN (${jsonIntegers})`, [JSON.stringify(refs)]))[0]!.n);
      if (n <= toSkip) {
        toSkip -= n;
        continue;
      }
    }
    for (const s of await read(refs, take - out.length, toSkip)) out.push(s);
    toSkip = 0;
  }
  return out;
}
