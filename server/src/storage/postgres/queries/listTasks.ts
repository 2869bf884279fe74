import type { TaskPage, TaskSortField } from '../../../contracts/index.js';
import type { TaskListQuery } from '../../MonitoringStore.js';
import { SUMMARY_COLUMNS, toTaskSummary, type TaskSummaryRow } from '../../common/taskRow.js';
import type { PgQuery } from './PgQuery.js';
import type { PgTypeResolver } from './resolveTypeNames.js';
import { pgStatCountSql, pgTaskListWhere } from './taskListWhere.js';

/** Sort fields → ORDER BY columns, each served by an index (insertion order breaks ties). */
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

/** Columns that hold no NULL: ordered without a NULLS clause, so that a backward walk of their index serves DESC. */
const NOT_NULL = new Set(['created_at', 'status', 'type', 'queue', 'seq']);

/** ORDER BY of a list: NULLs sort lowest, as in SQLite (first ascending, last descending). */
export function orderBy(sortBy: TaskSortField, descending: boolean): string {
  const dir = descending ? 'DESC' : 'ASC';
  const nulls = descending ? ' NULLS LAST' : ' NULLS FIRST';
  return [...ORDER_COLUMNS[sortBy], 'seq'].map((c) => `${c} ${dir}${NOT_NULL.has(c) ? '' : nulls}`).join(', ');
}

/** GET /tasks and GET /queues/{name}/tasks: one indexed page plus a count (NULLs sort as in SQLite: lowest). */
export function pgListTasks(q: PgQuery, resolver: PgTypeResolver) {
  return async function listTasks(query: TaskListQuery): Promise<TaskPage> {
    const { page, pageSize } = query;
    const pageOf = (totalCount: number, items: TaskPage['items'] = []): TaskPage => ({
      items,
      totalCount,
      page,
      pageSize,
      totalPages: Math.ceil(totalCount / pageSize),
    });
    const where = await pgTaskListWhere(query, resolver);
    if (where.empty) return pageOf(0);
    // The count and the page run at once on two pooled connections (one round trip of latency).
    const countQuery = where.statDimensions
      ? pgStatCountSql(where.statDimensions)
      : { sql: `SELECT COUNT(*) AS n FROM tasks ${where.sql}`, params: where.params.values };
    const offset = (page - 1) * pageSize;
    const order = orderBy(query.sortBy, query.sortDescending);
    const pageParams = [...where.params.values, pageSize, offset];
    const n = where.params.values.length;
    const [counted, rows] = await Promise.all([
      q<{ n: number }>(countQuery.sql, countQuery.params),
      q<TaskSummaryRow>(`SELECT ${SUMMARY_COLUMNS} FROM tasks ${where.sql} ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`, pageParams),
    ]);
    const totalCount = counted[0]!.n;
    return pageOf(totalCount, rows.map((r) => toTaskSummary(r)));
  };
}
