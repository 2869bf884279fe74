import type { TaskListFilter } from '../../MonitoringStore.js';
import { compactPageSeqs, type CompactScope } from './compactPageSeqs.js';
import { PENDING_OCCURRENCE_TASKS, type PendingOccurrenceReads } from './pendingOccurrenceReads.js';
import { queryOne, type ReadDb } from './ReadDb.js';
import type { TypeResolver } from './resolveTypeNames.js';
import { buildTaskListWhere, statCountSql, type TaskListWhere } from './taskListWhere.js';

/**
 * Whether a compact occurrence (Pending, an occurrence, not recurring, no error, no key) can meet
 * the filter; when it cannot, the list reads task rows only, as it always did.
 */
export function compactCanMatch(filter: TaskListFilter): boolean {
  if (filter.statuses && filter.statuses.length > 0 && !filter.statuses.includes('Pending')) return false;
  if (filter.onlyOccurrences === false || filter.isRecurring === true) return false;
  return filter.failureFingerprint === undefined;
}

/**
 * Whether every condition of the filter is a schedule's (queue, type, parent, argument search) or
 * the same for every compact occurrence (status, recurring, occurrence): then a schedule's compact
 * rows all match or none do. Creation-time bounds, a search term (a handler, which an occurrence
 * may override) and the catch-up flag are a row's own.
 */
export function compactPlain(filter: TaskListFilter): boolean {
  const term = filter.searchTerm !== undefined && filter.searchTerm !== '';
  return filter.createdAfterMs === undefined && filter.createdBeforeMs === undefined && !term && filter.onlyCatchUp === undefined;
}

/** Whether no condition of the filter names a schedule's column (queue, type, parent, its request). */
export function compactEverySchedule(filter: TaskListFilter): boolean {
  const none = (v: readonly unknown[] | undefined) => v === undefined || v.length === 0;
  return filter.queueName === undefined && (filter.taskType === undefined || filter.taskType === '') && filter.parentTaskId === undefined &&
    none(filter.requestSearch) && none(filter.searchTermRequestTerms);
}

/** How many task rows a page in the list's middle reads whole, so as to read only a window of the compact rows. */
const WINDOW_TASK_ROWS = 10_000;
/** Past this many rows from the list's start, a page looks for that window (nearer, the rows before it cost less than the count). */
const WINDOW_FROM = 1_000;

/**
 * A task list over the task rows and the compact occurrences together: the same filter as a
 * WHERE on `tasks` and one on the view, counted and paged as one list ordered by the sort
 * columns, then insertion order (a task row's rowid; the view's rowid for a compact occurrence).
 * Where sort keys tie, a compact occurrence comes after every task row, also one inserted after
 * it (the view's rowid is 2^40 + seq): as a task row it would have come before such a row.
 */
export interface TaskListUnion {
  /** How many rows match: from the counters where every condition is a counter dimension (they count compact rows), else both relations counted. */
  count(): Promise<number>;
  /** `columns` (plain task columns or expressions with names) of rows [offset, offset+limit) in `orderColumns` order. */
  page<R>(columns: string, orderColumns: readonly string[], descending: boolean, limit: number, offset: number): Promise<R[]>;
}

/** The union list of `filter`, or undefined when no compact occurrence can be in it (none exist, or none can match). */
export async function taskListUnion(
  db: ReadDb,
  pending: PendingOccurrenceReads | undefined,
  filter: TaskListFilter,
  resolver: TypeResolver,
  tasks: TaskListWhere,
): Promise<TaskListUnion | undefined> {
  if (pending === undefined || tasks.empty || !compactCanMatch(filter) || !(await pending.present())) return undefined;
  const view = await buildTaskListWhere(pending.viewDb, filter, resolver);
  const scope: CompactScope = { where: view, plain: compactPlain(filter), everySchedule: compactEverySchedule(filter) };
  const { dialect } = db;
  const order = (columns: readonly string[], desc: boolean) => columns.map((c) => dialect.orderKey(c, desc)).join(', ');
  return {
    async count() {
      if (tasks.statDimensions) {
        const stat = statCountSql(db, tasks.statDimensions);
        return (await queryOne<{ n: number }>(db, stat.sql, stat.params)).n;
      }
      const sql = `SELECT (SELECT COUNT(*) FROM tasks ${tasks.sql(false)}) + (SELECT COUNT(*) FROM ${PENDING_OCCURRENCE_TASKS} ${view.sql(false)}) AS n`;
      return (await queryOne<{ n: number }>(db, sql, [...tasks.params, ...view.params])).n;
    },
    async page<R>(columns: string, orderColumns: readonly string[], desc: boolean, limit: number, offset: number) {
      // Each side's rows up to the page's last in list order, then the page of their merge.
      const ord = dialect.insertionOrder;
      const inner = order([...orderColumns, ord], desc);
      const outer = order([...orderColumns, 'ord'], desc);
      let wanted = offset + limit;
      // A page past the first rows: when few task rows match (at most WINDOW_TASK_ROWS), at most
      // `before` = min(their count, offset) of them come before the page, so the page is in the
      // task rows and the compact rows from position offset - before on, at position `before`:
      // the compact rows before that are skipped in the database, never read out.
      let compactSkip = 0;
      if (offset > WINDOW_FROM) {
        const capped = `SELECT COUNT(*) AS n FROM (SELECT 1 FROM tasks ${tasks.sql(false)} LIMIT ${WINDOW_TASK_ROWS + 1}) AS t`;
        const taskRows = Number((await queryOne<{ n: number | string }>(db, capped, tasks.params)).n);
        if (taskRows <= WINDOW_TASK_ROWS) {
          const before = Math.min(taskRows, offset);
          compactSkip = offset - before;
          wanted = before + limit;
        }
      }
      // Task rows: by their indexes; a selective match (argument search, key-only term) reads its
      // small set's sort keys once, as the list does without compact rows.
      const keyed = `WITH m AS MATERIALIZED (SELECT ${ord} AS r, ${orderColumns.join(', ')} FROM tasks ${tasks.sql(false)})
        SELECT r FROM m ORDER BY ${order([...orderColumns, 'r'], desc)} LIMIT ?`;
      const taskSide = tasks.selective
        ? `SELECT ${columns}, ${ord} AS ord FROM tasks WHERE ${ord} IN (${keyed})`
        : `SELECT * FROM (SELECT ${columns}, ${ord} AS ord FROM tasks ${tasks.sql(false)} ORDER BY ${inner} LIMIT ?) AS task_side`;
      // Compact rows: the chosen rows' seqs first (by an index of the compact table), then only those rows' columns.
      // (As a list the planner counts: a window's 1,020 rows join their schedules by hash, not 1,020
      // lookups of each; PostgreSQL takes a set-returning function for 100 rows.)
      const seqs = await compactPageSeqs(db, scope, orderColumns, desc, compactSkip, offset + limit - compactSkip);
      const viewSide = `SELECT ${columns}, ${ord} AS ord FROM ${PENDING_OCCURRENCE_TASKS} WHERE ${dialect.amongIntegers('seq')}`;
      const sql = `SELECT * FROM (${taskSide} UNION ALL ${viewSide}) AS listed ORDER BY ${outer} LIMIT ? OFFSET ?`;
      return db.query<R>(sql, [...tasks.params, wanted, JSON.stringify(seqs), limit, offset - compactSkip]);
    },
  };
}
