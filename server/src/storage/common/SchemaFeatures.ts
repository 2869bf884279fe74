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
  /** SQLite migration 12 / PostgreSQL 10: Queued rows carry the instance that reserved them and when. */
  reservations: boolean;
  /**
   * SQLite migration 15 / PostgreSQL 19: compact Pending occurrences (`pending_occurrences`, shown as task rows by
   * the view `pending_occurrence_tasks`); reads that can show a Pending occurrence ask it too.
   */
  pendingOccurrences: boolean;
  /** SQLite migration 20 / PostgreSQL 24: compact occurrences counted by block of seqs (`compact_seq_blocks`). */
  compactSeqBlocks: boolean;
}
