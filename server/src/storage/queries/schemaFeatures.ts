import type { Database } from 'better-sqlite3';

/** Which optional monitoring structures (migration 4) the opened database has. */
export interface SchemaFeatures {
  typeHandlerSet: boolean;
  /** Migration 6: argument search index, failure groups, queue throughput buckets. */
  requestSearch: boolean;
  failureGroups: boolean;
  queueThroughput: boolean;
  /** Migration 8: search rows with the group columns, substring index of task keys. */
  searchRows: boolean;
  /** Migration 9: whether search-row key order is creation-time order is recorded. */
  searchRowOrder: boolean;
  /** Migration 10: search rows carry their task's status. */
  searchRowStatus: boolean;
  /** Migration 6: status-audit rows name who changed the status. */
  statusAuditChangedBy: boolean;
  /** Migration 14: tasks carry the trace context of their dispatch. */
  traceContext: boolean;
}

export function detectSchemaFeatures(db: Database): SchemaFeatures {
  const row = db
    .prepare(`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'monitor_type_handlers'`)
    .get() as { n: number };
  const has = db.prepare(`SELECT COUNT(*) FROM sqlite_master WHERE name = ?`).pluck();
  return {
    typeHandlerSet: row.n > 0,
    requestSearch: (has.get('task_request_fts') as number) > 0,
    failureGroups: (has.get('failure_groups_day') as number) > 0,
    queueThroughput: (has.get('stat_queue_finished_10s') as number) > 0,
    searchRows: (has.get('task_key_fts') as number) > 0,
    searchRowOrder: (has.get('search_row_order') as number) > 0,
    searchRowStatus: (has.get('tr_tasks_search_row_status') as number) > 0,
    statusAuditChangedBy: (db.prepare(`SELECT COUNT(*) FROM pragma_table_info('status_audit') WHERE name = 'changed_by'`).pluck().get() as number) > 0,
    traceContext: (db.prepare(`SELECT COUNT(*) FROM pragma_table_info('tasks') WHERE name = 'traceparent'`).pluck().get() as number) > 0,
  };
}
