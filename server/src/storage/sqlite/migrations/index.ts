import { migration001Tasks } from './001_tasks.js';
import { migration002ReadModels } from './002_readModels.js';
import { migration003Schedules } from './003_schedules.js';
import { migration004Monitoring } from './004_monitoring.js';
import { migration006SearchFailuresLatency } from './006_search_failures_latency.js';
import { migration007ReadModelDeltas } from './007_readModelDeltas.js';
import { migration008SearchRowSortKeys } from './008_searchRowSortKeys.js';
import { migration009SearchRowOrder } from './009_searchRowOrder.js';
import { migration010SearchRowStatus } from './010_searchRowStatus.js';
import { migration011PendingDueIndex } from './011_pendingDueIndex.js';
import { migration012Reservations } from './012_reservations.js';
import { migration013AbandonedCount } from './013_abandonedCount.js';
import { migration014TraceContext } from './014_traceContext.js';
import { migration015PendingOccurrences } from './015_pendingOccurrences.js';
import { migration016PendingOccurrenceSortIndex } from './016_pendingOccurrenceSortIndex.js';
import { migration017OperatorAudit } from './017_operatorAudit.js';
import { migration018AlertStates } from './018_alertStates.js';
import { migration019PendingOccurrenceScheduleIndex } from './019_pendingOccurrenceScheduleIndex.js';
import { migration020CompactSeqBlocks } from './020_compactSeqBlocks.js';
import { migration021CompactBlocksCountedAhead } from './021_compactBlocksCountedAhead.js';

/**
 * Ordered schema migrations; the database's `PRAGMA user_version` is the number applied.
 * Append only: a released migration is never edited.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: readonly Migration[] = [
  { version: 1, name: 'tasks and history tables', sql: migration001Tasks },
  { version: 2, name: 'read models (counters and run buckets) with triggers', sql: migration002ReadModels },
  { version: 3, name: 'durable schedules: due-schedule index', sql: migration003Schedules },
  { version: 4, name: 'monitoring: sort indexes, occurrence slot index, type/handler set', sql: migration004Monitoring },
  { version: 6, name: 'argument search index, failure groups, queue throughput, status changed_by', sql: migration006SearchFailuresLatency },
  { version: 7, name: 'read models kept by per-transaction deltas: per-row triggers dropped', sql: migration007ReadModelDeltas },
  { version: 8, name: 'search rows carry the sort and group columns; trigram index of task keys', sql: migration008SearchRowSortKeys },
  { version: 9, name: 'whether search-row key order is creation-time order (argument search pages in the index)', sql: migration009SearchRowOrder },
  { version: 10, name: 'search rows carry the task status (argument search with a status filter stays in the search rows)', sql: migration010SearchRowStatus },
  { version: 11, name: 'the due-work index holds Pending rows only (claims and run ends no longer touch it)', sql: migration011PendingDueIndex },
  { version: 12, name: 'rows taken ahead of a worker stay Queued (reserved_by, reserved_at); runs carry a token (run_token)', sql: migration012Reservations },
  { version: 13, name: 'each task counts the runs abandoned while running (process died or lease lost)', sql: migration013AbandonedCount },
  { version: 14, name: 'the trace context of the dispatch that created a task', sql: migration014TraceContext },
  { version: 15, name: 'compact Pending occurrences (a catch-up writes one small row each; task rows when due)', sql: migration015PendingOccurrences },
  { version: 16, name: 'compact Pending occurrences in creation order (the task list pages them by an index)', sql: migration016PendingOccurrenceSortIndex },
  { version: 17, name: 'the operator audit trail (sign-ins, management actions and their refusals)', sql: migration017OperatorAudit },
  { version: 18, name: 'alert rule states (a restart neither fires a firing rule again nor forgets to resolve it)', sql: migration018AlertStates },
  { version: 19, name: 'each schedule’s compact Pending occurrences in creation order (a few schedules’ rows are merged, not walked past)', sql: migration019PendingOccurrenceScheduleIndex },
  { version: 20, name: 'compact Pending occurrences counted by block of seqs (a deep page is found by the counts, not by reading the rows before it)', sql: migration020CompactSeqBlocks },
  { version: 21, name: 'a catch-up counts its compact rows\' blocks itself (the insert trigger steps aside for it)', sql: migration021CompactBlocksCountedAhead },
];
