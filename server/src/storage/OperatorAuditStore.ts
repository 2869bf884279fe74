import type { OperatorAuditEntry, OperatorAuditPage } from '../contracts/index.js';

/** A record to append: the entry without its id (given by storage) and with its time in ms. */
export type OperatorAuditRecord = Omit<OperatorAuditEntry, 'id' | 'atUtc'> & { atMs: number };

/** Filters of the audit list (times in ms, bounds included). */
export interface OperatorAuditFilter {
  actor?: string;
  action?: OperatorAuditEntry['action'];
  target?: string;
  result?: OperatorAuditEntry['result'];
  fromMs?: number;
  toMs?: number;
  page: number;
  pageSize: number;
}

/**
 * The `operator_audit` table of either backend. Append-only for every caller but the bulk
 * bookkeeping: a bulk action's record receives the counts its operation reached once, when it
 * ends. Retention deletes whole records older than a cut-off.
 */
export interface OperatorAuditStore {
  /** Appends a record; answers its id. */
  append(record: OperatorAuditRecord): Promise<number>;
  /** Writes the final counts of a bulk action into its record (only while it still says Running). */
  finishBulk(id: number, bulk: NonNullable<OperatorAuditEntry['bulk']>): Promise<void>;
  /** Newest first. */
  list(filter: OperatorAuditFilter): Promise<OperatorAuditPage>;
  /** Deletes the records older than `cutoffMs`; answers how many. */
  prune(cutoffMs: number): Promise<number>;
}
