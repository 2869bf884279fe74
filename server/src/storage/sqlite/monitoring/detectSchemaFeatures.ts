import type { Database } from 'better-sqlite3';
import type { SchemaFeatures } from '../../common/SchemaFeatures.js';
import { hasPendingOccurrences } from '../schedules/spillPendingOccurrences.js';

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
    reservations: (db.prepare(`SELECT COUNT(*) FROM pragma_table_info('tasks') WHERE name = 'reserved_by'`).pluck().get() as number) > 0,
    pendingOccurrences: hasPendingOccurrences(db),
    compactSeqBlocks: (has.get('compact_seq_blocks') as number) > 0,
  };
}
