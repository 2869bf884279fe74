import type { Database, Statement } from 'better-sqlite3';
import type { TaskPage, TaskSortField } from '../../../contracts/index.js';
import type { TaskListQuery } from '../../MonitoringStore.js';
import type { TypeResolver } from './resolveTypeNames.js';
import type { TaskListWhereFeatures } from './taskListWhere.js';
import { SUMMARY_COLUMNS as CURRENT_SUMMARY_COLUMNS, SUMMARY_COLUMNS_WITHOUT_RESERVATIONS, toTaskSummary, type TaskSummaryRow } from '../../common/taskRow.js';
import { buildTaskListWhere, statCountSql } from './taskListWhere.js';

/** Task-list sort fields → ORDER BY column lists, each served by an index (rowid breaks ties). */
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

/** GET /tasks and GET /queues/{name}/tasks: one indexed page plus a count. */
export function createListTasks(db: Database, resolver: TypeResolver, features?: TaskListWhereFeatures) {
  // A database opened read-only from before the reservation columns lists without them.
  const SUMMARY_COLUMNS = features?.reservations === false ? SUMMARY_COLUMNS_WITHOUT_RESERVATIONS : CURRENT_SUMMARY_COLUMNS;
  const cache = new Map<string, Statement>();
  const prepared = (sql: string): Statement => {
    let st = cache.get(sql);
    if (!st) {
      st = db.prepare(sql);
      if (cache.size > 500) cache.clear();
      cache.set(sql, st);
    }
    return st;
  };
  const totalRows = db.prepare(`SELECT COALESCE(SUM(n), 0) FROM stat_tasks`).pluck();
  const orderFlag = features?.searchRowOrder ? db.prepare(`SELECT ordered FROM search_row_order WHERE id = 1`).pluck() : undefined;
  /** False where the schema does not record the order (before migration 9). */
  const searchRowsOrdered = (): boolean => orderFlag?.get() === 1;
  /** The search rows carry the status (migration 10), so they can also sort by it. */
  const statusInRows = features === undefined || features.searchRowStatus === true;

  return function listTasks(query: TaskListQuery): TaskPage {
    const { page, pageSize } = query;
    const pageOf = (rows: TaskSummaryRow[], totalCount: number): TaskPage => ({
      items: rows.map((r) => toTaskSummary(r)),
      totalCount,
      page,
      pageSize,
      totalPages: Math.ceil(totalCount / pageSize),
    });
    const where = buildTaskListWhere(query, resolver, features);
    if (where.empty) return pageOf([], 0);
    const dir = query.sortDescending ? 'DESC' : 'ASC';
    const orderColumns = [...ORDER_COLUMNS[query.sortBy], 'rowid'];
    const order = orderColumns.map((c) => `${c} ${dir}`).join(', ');
    const offset = (page - 1) * pageSize;

    /**
     * A page of a small matched set: reads the set's sort keys once from `source` (one pass: the
     * index match, the filters, the count), sorts that set and fetches only the page's task rows
     * (`link` names a matched row's task: the source column, then the task table's column).
     */
    const pageOfMatched = (source: string, whereSql: string, params: readonly unknown[], keys: readonly string[], link: [string, string]): TaskPage => {
      const keyList = keys.map((c, i) => `${c} AS k${i}`).join(', ');
      const keyOrder = keys.map((_, i) => `k${i} ${dir}`).join(', ');
      const sql = `WITH matched AS MATERIALIZED (SELECT ${link[0]} AS link, ${keyList} FROM ${source} ${whereSql})
        SELECT ${SUMMARY_COLUMNS}, (SELECT COUNT(*) FROM matched) AS total_count FROM tasks
         WHERE ${link[1]} IN (SELECT link FROM matched ORDER BY ${keyOrder} LIMIT ? OFFSET ?)
         ORDER BY ${order}`;
      const rows = prepared(sql).all(...params, pageSize, offset) as (TaskSummaryRow & { total_count: number })[];
      const totalCount = rows.length > 0
        ? rows[0]!.total_count
        : (prepared(`SELECT COUNT(*) AS n FROM ${source} ${whereSql}`).get(...params) as { n: number }).n;
      return pageOf(rows, totalCount);
    };

    // Argument search alone, sorted by creation time, while the search rows' key order is the
    // creation-time order: the full-text index (rows in key order) counts and pages the matches,
    // and only the page's task rows are read.
    if (where.requestMatchOnly !== undefined && query.sortBy === 'CreatedAtUtc' && searchRowsOrdered()) {
      const match = where.requestMatchOnly;
      const totalCount = prepared(`SELECT COUNT(*) FROM task_request_fts WHERE task_request_fts MATCH ?`).pluck().get(match) as number;
      if (offset >= totalCount) return pageOf([], totalCount);
      // The index reads forwards by skipping, backwards by walking its lists: a newest-first page
      // of sparse matches is read as the same rows counted from the oldest end.
      const walked = ((offset + pageSize) * (totalRows.get() as number)) / totalCount;
      const forwards = !query.sortDescending || walked > REVERSE_WALK_ROWS;
      const limit = forwards && query.sortDescending ? Math.min(pageSize, totalCount - offset) : pageSize;
      const skip = forwards && query.sortDescending ? totalCount - offset - limit : offset;
      const rows = prepared(`SELECT ${SUMMARY_COLUMNS} FROM tasks WHERE id IN (SELECT s.task_id FROM task_search_rows s WHERE s.id IN
          (SELECT rowid FROM task_request_fts WHERE task_request_fts MATCH ? ORDER BY rowid ${forwards ? 'ASC' : 'DESC'} LIMIT ? OFFSET ?))
         ORDER BY ${order}`).all(match, limit, skip) as TaskSummaryRow[];
      return pageOf(rows, totalCount);
    }
    // A full-text match whose other filters and sort order the search rows can answer: all of it
    // in the search rows (a few columns each), then only the page's task rows.
    const rowOrder = where.searchRows && (SEARCH_ROW_ORDER_COLUMNS[query.sortBy] ?? (query.sortBy === 'Status' && statusInRows ? ['status', 'created_at'] : undefined));
    if (where.searchRows && rowOrder) {
      return pageOfMatched('task_search_rows', where.searchRows.sql, where.searchRows.params, [...rowOrder, 'id'], ['task_id', 'id']);
    }
    // Argument search or a key-only search term with other filters or sorts: an index yields a
    // small set of rows, so read their sort keys once instead of matching twice (count, then
    // page) and sorting whole rows.
    if (where.selective) return pageOfMatched('tasks', where.sql(false), where.params, orderColumns, ['rowid', 'rowid']);

    let totalCount: number;
    if (where.statDimensions) {
      const c = statCountSql(where.statDimensions);
      totalCount = (prepared(c.sql).get(...c.params) as { n: number }).n;
    } else {
      totalCount = (prepared(`SELECT COUNT(*) AS n FROM tasks ${where.sql(false)}`).get(...where.params) as { n: number }).n;
    }
    if (offset >= totalCount) return pageOf([], totalCount);

    // A small planner: when the IN-lists match a large share of the rows, walking the sort
    // index and filtering reaches offset+limit rows sooner than collecting and sorting them all.
    let demote = false;
    if (where.hasInList && where.statDimensions) {
      const all = totalRows.get() as number;
      const expectedWalk = ((offset + pageSize) * all) / Math.max(totalCount, 1);
      demote = expectedWalk < totalCount;
    }
    const sql = `SELECT ${SUMMARY_COLUMNS} FROM tasks ${where.sql(demote)} ORDER BY ${order} LIMIT ? OFFSET ?`;
    const rows = prepared(sql).all(...where.params, pageSize, offset) as TaskSummaryRow[];
    return pageOf(rows, totalCount);
  };
}
