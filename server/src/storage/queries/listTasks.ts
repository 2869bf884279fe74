import type { Database, Statement } from 'better-sqlite3';
import type { TaskPage, TaskSortField } from '../../contracts/index.js';
import type { TaskListQuery } from '../MonitoringStore.js';
import type { TypeResolver } from './resolveTypeNames.js';
import type { TaskListWhereFeatures } from './taskListWhere.js';
import { SUMMARY_COLUMNS, toTaskSummary, type TaskSummaryRow } from './taskRow.js';
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

/** GET /tasks and GET /queues/{name}/tasks: one indexed page plus a count. */
export function createListTasks(db: Database, resolver: TypeResolver, features?: TaskListWhereFeatures) {
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

    // Argument search or a key-only search term: an index yields a small set of rows, so read
    // their sort keys once (one pass: the index match, the filters, the count), sort that set and
    // fetch only the page's rows, instead of matching twice (count, then page) and sorting whole rows.
    if (where.selective) {
      const keys = orderColumns.map((c, i) => `${c} AS k${i}`).join(', ');
      const keyOrder = orderColumns.map((_, i) => `k${i} ${dir}`).join(', ');
      const sql = `WITH matched AS MATERIALIZED (SELECT ${keys} FROM tasks ${where.sql(false)})
        SELECT ${SUMMARY_COLUMNS}, (SELECT COUNT(*) FROM matched) AS total_count FROM tasks
         WHERE rowid IN (SELECT k${orderColumns.length - 1} FROM matched ORDER BY ${keyOrder} LIMIT ? OFFSET ?)
         ORDER BY ${order}`;
      const rows = prepared(sql).all(...where.params, pageSize, offset) as (TaskSummaryRow & { total_count: number })[];
      const totalCount = rows.length > 0
        ? rows[0]!.total_count
        : (prepared(`SELECT COUNT(*) AS n FROM tasks ${where.sql(false)}`).get(...where.params) as { n: number }).n;
      return pageOf(rows, totalCount);
    }

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
