import type { TaskPage, TaskSortField } from '../../../contracts/index.js';
import type { TaskListQuery } from '../../MonitoringStore.js';
import { SUMMARY_COLUMNS as CURRENT_SUMMARY_COLUMNS, SUMMARY_COLUMNS_WITHOUT_RESERVATIONS, toTaskSummary, type TaskSummaryRow } from '../taskRow.js';
import { pendingOccurrenceReads } from './pendingOccurrenceReads.js';
import { queryOne, type ReadDb } from './ReadDb.js';
import type { TypeResolver } from './resolveTypeNames.js';
import { taskListUnion } from './taskListUnion.js';
import { buildTaskListWhere, statCountSql } from './taskListWhere.js';

/** Task-list sort fields → ORDER BY columns, each served by an index (insertion order breaks ties). */
const ORDER_COLUMNS: Record<TaskSortField, readonly string[]> = {
  CreatedAtUtc: ['created_at'],
  LastExecutionUtc: ['last_execution_at'],
  ScheduledExecutionUtc: ['scheduled_at'],
  StartedAtUtc: ['started_at'],
  Status: ['status', 'created_at'],
  Type: ['type', 'created_at'],
  QueueName: ['queue', 'created_at'],
  ExecutionTimeMs: ['execution_time_ms'],
};

/**
 * The sort fields whose columns a search row copies → its ORDER BY columns. The search row's key
 * breaks ties: search rows are numbered in the order the task rows were inserted, as the task
 * table's rowid is, so ties come out in the same order as in the task table.
 */
const SEARCH_ROW_ORDER_COLUMNS: Partial<Record<TaskSortField, readonly string[]>> = {
  CreatedAtUtc: ['created_at'],
  Type: ['type', 'created_at'],
  QueueName: ['queue', 'created_at'],
};

/** How many rows' worth of the argument index a backwards read may walk before a forward read is cheaper. */
const REVERSE_WALK_ROWS = 1_000_000;

/** From this many rows before a page on, the page's position is found without reading those rows whole. */
const DEEP_PAGE_OFFSET = 1_000;

/** GET /tasks and GET /queues/{name}/tasks: one indexed page plus a count. */
export function createListTasks(db: ReadDb, resolver: TypeResolver) {
  const { dialect } = db;
  const searchRows = dialect.searchRows;
  const totalRowsSql = `SELECT COALESCE(SUM(n), 0) AS n FROM ${dialect.model('stat_tasks')}`;
  const totalRows = async () => (await queryOne<{ n: number }>(db, totalRowsSql)).n;
  /** False where the store does not record the order (SQLite before migration 9). */
  const searchRowsOrdered = async () =>
    searchRows?.orderedSql !== undefined && (await db.query<{ ordered: number }>(searchRows.orderedSql))[0]?.ordered === 1;
  const count = async (sql: string, params: readonly unknown[]) => (await queryOne<{ n: number }>(db, sql, params)).n;
  // A database opened read-only from before the reservation columns lists without them.
  const SUMMARY_COLUMNS = db.features.reservations ? CURRENT_SUMMARY_COLUMNS : SUMMARY_COLUMNS_WITHOUT_RESERVATIONS;
  const pending = pendingOccurrenceReads(db);

  return async function listTasks(query: TaskListQuery): Promise<TaskPage> {
    const { page, pageSize } = query;
    const pageOf = (rows: TaskSummaryRow[], totalCount: number): TaskPage => ({
      items: rows.map((r) => toTaskSummary(r)),
      totalCount,
      page,
      pageSize,
      totalPages: Math.ceil(totalCount / pageSize),
    });
    const where = await buildTaskListWhere(db, query, resolver);
    if (where.empty) return pageOf([], 0);
    const desc = query.sortDescending;
    const orderColumns = [...ORDER_COLUMNS[query.sortBy], dialect.insertionOrder];
    const order = orderColumns.map((c) => dialect.orderKey(c, desc)).join(', ');
    const offset = (page - 1) * pageSize;
    // Compact occurrences that can match: one list of task rows and compact rows (the paths below read task rows only).
    const union = await taskListUnion(db, pending, query, resolver, where);
    if (union) {
      const totalCount = await union.count();
      if (offset >= totalCount) return pageOf([], totalCount);
      // Each side is read from its first row to the page's last: a page in the second half of the
      // list is read from the other end (the order reversed, insertion order included, which
      // reverses it exactly), so the last page costs what the first does.
      const fromEnd = totalCount - offset - pageSize;
      if (fromEnd < offset) {
        const take = Math.min(pageSize, totalCount - offset);
        const rows = await union.page<TaskSummaryRow>(SUMMARY_COLUMNS, ORDER_COLUMNS[query.sortBy], !desc, take, Math.max(0, fromEnd));
        return pageOf(rows.reverse(), totalCount);
      }
      return pageOf(await union.page<TaskSummaryRow>(SUMMARY_COLUMNS, ORDER_COLUMNS[query.sortBy], desc, pageSize, offset), totalCount);
    }
    const countSql = where.statDimensions
      ? statCountSql(db, where.statDimensions)
      : { sql: `SELECT COUNT(*) AS n FROM tasks ${where.sql(false)}`, params: where.params };

    if (dialect.concurrentReads && !where.selective) {
      // The count and the page at once on two pooled connections (one round trip of latency).
      // Not for a selective match: reading it twice at once costs twice the work for one answer.
      // A deep page walks the rows before it in an index that holds the sort key and insertion
      // order (an index-only scan, no task row read) and reads only its own rows whole.
      const ord = dialect.insertionOrder;
      const pageSql = offset >= DEEP_PAGE_OFFSET
        ? `SELECT ${SUMMARY_COLUMNS} FROM tasks WHERE ${ord} IN (SELECT ${ord} FROM tasks ${where.sql(false)} ORDER BY ${order} LIMIT ? OFFSET ?) ORDER BY ${order}`
        : `SELECT ${SUMMARY_COLUMNS} FROM tasks ${where.sql(false)} ORDER BY ${order} LIMIT ? OFFSET ?`;
      const [totalCount, rows] = await Promise.all([
        count(countSql.sql, countSql.params),
        db.query<TaskSummaryRow>(pageSql, [...where.params, pageSize, offset]),
      ]);
      return pageOf(rows, totalCount);
    }

    /**
     * A page of a small matched set: reads the set's sort keys once from `source` (one pass: the
     * index match, the filters, the count), sorts that set and fetches only the page's task rows
     * (`link` names a matched row's task: the source column, then the task table's column).
     */
    const pageOfMatched = async (source: string, whereSql: string, params: readonly unknown[], keys: readonly string[], link: [string, string]): Promise<TaskPage> => {
      const keyList = keys.map((c, i) => `${c} AS k${i}`).join(', ');
      const keyOrder = keys.map((_, i) => dialect.orderKey(`k${i}`, desc)).join(', ');
      const sql = `WITH matched AS MATERIALIZED (SELECT ${link[0]} AS link, ${keyList} FROM ${source} ${whereSql})
        SELECT ${SUMMARY_COLUMNS}, (SELECT COUNT(*) FROM matched) AS total_count FROM tasks
         WHERE ${link[1]} IN (SELECT link FROM matched ORDER BY ${keyOrder} LIMIT ? OFFSET ?)
         ORDER BY ${order}`;
      const rows = await db.query<TaskSummaryRow & { total_count: number }>(sql, [...params, pageSize, offset]);
      const totalCount = rows.length > 0 ? rows[0]!.total_count : await count(`SELECT COUNT(*) AS n FROM ${source} ${whereSql}`, params);
      return pageOf(rows, totalCount);
    };

    // Argument search alone, sorted by creation time, while the search rows' key order is the
    // creation-time order: the full-text index (rows in key order) counts and pages the matches,
    // and only the page's task rows are read.
    if (searchRows && where.requestMatchOnly !== undefined && query.sortBy === 'CreatedAtUtc' && (await searchRowsOrdered())) {
      const ids = searchRows.requestIds(where.requestMatchOnly);
      const totalCount = await count(`SELECT COUNT(*) AS n FROM (${ids.sql}) AS matched`, ids.params);
      if (offset >= totalCount) return pageOf([], totalCount);
      // The index reads forwards by skipping, backwards by walking its lists: a newest-first page
      // of sparse matches is read as the same rows counted from the oldest end.
      const walked = ((offset + pageSize) * (await totalRows())) / totalCount;
      const forwards = !desc || walked > REVERSE_WALK_ROWS;
      const limit = forwards && desc ? Math.min(pageSize, totalCount - offset) : pageSize;
      const skip = forwards && desc ? totalCount - offset - limit : offset;
      const pageIds = `${ids.sql} ORDER BY id ${forwards ? 'ASC' : 'DESC'} LIMIT ? OFFSET ?`;
      const rows = await db.query<TaskSummaryRow>(`SELECT ${SUMMARY_COLUMNS} FROM tasks WHERE ${searchRows.tasksOf(pageIds)} ORDER BY ${order}`, [...ids.params, limit, skip]);
      return pageOf(rows, totalCount);
    }
    // Argument search alone, sorted by creation time, where the words' table carries the creation
    // time: the matches found there (read anyway for the phrase check) are counted and sorted
    // there, and only the page's task rows are read.
    const words = dialect.requestWords;
    if (words && where.requestMatchOnly !== undefined && query.sortBy === 'CreatedAtUtc') {
      const match = words.match(where.requestMatchOnly);
      const seq = dialect.insertionOrder;
      return pageOfMatched(words.table, `WHERE ${match.sql}`, match.params, ['created_at', seq], [seq, seq]);
    }
    // A search term that can only be a key, alone, sorted by creation time, where the keys' table
    // carries the creation time: counted and sorted there, and only the page's task rows are read.
    const keys = dialect.taskKeys;
    if (keys && where.keyMatchOnly !== undefined && query.sortBy === 'CreatedAtUtc') {
      const match = keys.match(where.keyMatchOnly);
      const seq = dialect.insertionOrder;
      return pageOfMatched(keys.table, `WHERE ${match.sql}`, match.params, ['created_at', seq], [seq, seq]);
    }
    // A full-text match whose other filters and sort order the search rows can answer: all of it
    // in the search rows (a few columns each), then only the page's task rows.
    const rowOrder = SEARCH_ROW_ORDER_COLUMNS[query.sortBy] ?? (query.sortBy === 'Status' && searchRows?.status ? ['status', 'created_at'] : undefined);
    if (where.searchRows && rowOrder) {
      return pageOfMatched('task_search_rows', where.searchRows.sql, where.searchRows.params, [...rowOrder, 'id'], ['task_id', 'id']);
    }
    // Argument search or a key-only search term (on SQLite, with other filters or sorts): an
    // index yields a small set of rows, so read their sort keys once instead of matching twice
    // (count, then page) and sorting whole rows.
    if (where.selective) return pageOfMatched('tasks', where.sql(false), where.params, orderColumns, [dialect.insertionOrder, dialect.insertionOrder]);

    const totalCount = await count(countSql.sql, countSql.params);
    if (offset >= totalCount) return pageOf([], totalCount);
    // A small planner: when the IN-lists match a large share of the rows, walking the sort
    // index and filtering reaches offset+limit rows sooner than collecting and sorting them all.
    let unhinted = false;
    if (where.hasInList && where.statDimensions) {
      const expectedWalk = ((offset + pageSize) * (await totalRows())) / Math.max(totalCount, 1);
      unhinted = expectedWalk < totalCount;
    }
    const rows = await db.query<TaskSummaryRow>(
      `SELECT ${SUMMARY_COLUMNS} FROM tasks ${where.sql(unhinted)} ORDER BY ${order} LIMIT ? OFFSET ?`,
      [...where.params, pageSize, offset],
    );
    return pageOf(rows, totalCount);
  };
}
