import type { QueryResult, QueryResultRow } from 'pg';
import type { ScheduleRow } from '../../EngineStore.js';

export type { ScheduleRow };
export { isScheduleRow } from '../../EngineStore.js';

export const SCHEDULE_COLUMNS = `id, type, handler, request, queue, status, task_key, audit_level, is_recurring, occurrence_mode, schedule_version,
  schedule_definition, cursor_at, halt, parent_task_id, scheduled_at, created_at, traceparent, tracestate`;

/** SQL condition selecting durable schedule rows (never run by the dispatcher). */
export const IS_SCHEDULE_ROW = `(is_recurring = 1 AND occurrence_mode = 'Durable' AND parent_task_id IS NULL)`;

/** What runs a statement: the storage's pool (a read on its own) or a transaction's client. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(sql: string, params?: unknown[]): Promise<QueryResult<R>>;
}
