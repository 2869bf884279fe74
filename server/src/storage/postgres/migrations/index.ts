import { pgMigration001Tasks } from './001_tasks.js';
import { pgMigration002ReadModels } from './002_readModels.js';
import { pgMigration003SearchFailuresLatency } from './003_searchFailuresLatency.js';
import { pgMigration004SortIndexes } from './004_sortIndexes.js';
import { pgMigration005UpdateTriggersStepAside } from './005_updateTriggersStepAside.js';
import { pgMigration006RateLimitStarts } from './006_rateLimitStarts.js';
import { pgMigration007OpenKeyIndexNullSafe } from './007_openKeyIndexNullSafe.js';
import { pgMigration008KeyTrigramIndex } from './008_keyTrigramIndex.js';
import { pgMigration009SearchWordsTable } from './009_searchWordsTable.js';
import { pgMigration010Reservations } from './010_reservations.js';
import { pgMigration011AbandonedCount } from './011_abandonedCount.js';
import { pgMigration012TraceContext } from './012_traceContext.js';
import { pgMigration013ReadModelDeltasFromOneDescription } from './013_readModelDeltasFromOneDescription.js';
import { pgMigration014SearchLookupAndCoveringSeq } from './014_searchLookupAndCoveringSeq.js';
import { pgMigration017OperatorAudit } from './017_operatorAudit.js';
import { pgMigration018AlertStates } from './018_alertStates.js';
import { pgMigration019PendingOccurrences } from './019_pendingOccurrences.js';
import { pgMigration020PendingOccurrenceScheduleIndex } from './020_pendingOccurrenceScheduleIndex.js';
import { pgMigration021SearchWordsCarryCreatedAt } from './021_searchWordsCarryCreatedAt.js';
import { pgMigration022CompactOccurrenceDeltasAhead } from './022_compactOccurrenceDeltasAhead.js';
import { pgMigration023TaskKeysTable } from './023_taskKeysTable.js';
import { pgMigration024CompactSeqBlocks } from './024_compactSeqBlocks.js';
import { pgMigration030BulkUpdatesPlannedPerStatement } from './030_bulkUpdatesPlannedPerStatement.js';
import { pgMigration028TransitionJoinsPlannedPerStatement } from './028_transitionJoinsPlannedPerStatement.js';
import { pgMigration031ClaimOrderTieBreak } from './031_claimOrderTieBreak.js';

/** Ordered PostgreSQL migrations; `schema_migrations` records the versions applied. Append only. */
export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

export const pgMigrations: readonly PgMigration[] = [
  { version: 1, name: 'tasks, history tables, engine instances, event payloads', sql: pgMigration001Tasks },
  { version: 2, name: 'read models (rolled-up tables, delta tables, views) with statement triggers', sql: pgMigration002ReadModels },
  { version: 3, name: 'argument search, failure groups, queue throughput, status_audit.changed_by', sql: pgMigration003SearchFailuresLatency },
  { version: 4, name: 'list sort indexes with NULLs first on the nullable sort columns', sql: pgMigration004SortIndexes },
  { version: 5, name: 'UPDATE triggers step aside for a statement that appends its own read-model deltas', sql: pgMigration005UpdateTriggersStepAside },
  { version: 6, name: 'rate-limit windows shared by every instance', sql: pgMigration006RateLimitStarts },
  { version: 7, name: 'the open task-key index covers inline recurring rows (NULL-safe schedule-row exclusion)', sql: pgMigration007OpenKeyIndexNullSafe },
  { version: 8, name: 'trigram index of task keys (pg_trgm) for key-substring search', sql: pgMigration008KeyTrigramIndex },
  { version: 9, name: 'argument-search words in their own table; the due index over Pending rows only (status writes maintain fewer indexes)', sql: pgMigration009SearchWordsTable },
  { version: 10, name: 'rows taken ahead of a worker stay Queued (reserved_by, reserved_at, a NOTIFY when one is cancelled); runs carry a token', sql: pgMigration010Reservations },
  { version: 11, name: 'each task counts the runs abandoned while running (instance died or lease lost)', sql: pgMigration011AbandonedCount },
  { version: 12, name: 'the trace context of the dispatch that created a task', sql: pgMigration012TraceContext },
  { version: 13, name: 'read-model triggers generated from the one description of the deltas (readModelDeltas.ts); the finished-runs trigger folded into the UPDATE trigger', sql: pgMigration013ReadModelDeltasFromOneDescription },
  { version: 14, name: 'argument search reads the rare words of its terms from the index (svc_request_lookup); ux_tasks_seq covers created_at and status', sql: pgMigration014SearchLookupAndCoveringSeq },
  { version: 17, name: 'the operator audit trail (sign-ins, management actions and their refusals)', sql: pgMigration017OperatorAudit },
  { version: 18, name: 'alert rule states (a restart or a new leader neither fires a firing rule again nor forgets to resolve it)', sql: pgMigration018AlertStates },
  { version: 19, name: 'compact Pending occurrences (pending_occurrences, occurrence_schedules, the view pending_occurrence_tasks), counted by their own triggers', sql: pgMigration019PendingOccurrences },
  { version: 20, name: 'each schedule’s compact Pending occurrences in creation order (a few schedules’ rows are merged, not walked past)', sql: pgMigration020PendingOccurrenceScheduleIndex },
  { version: 21, name: 'argument-search words carry their task\'s creation time: a search alone is counted and paged in task_search', sql: pgMigration021SearchWordsCarryCreatedAt },
  { version: 22, name: 'the compact occurrences\' insert trigger steps aside for a COPY whose writer appended its read-model deltas ahead', sql: pgMigration022CompactOccurrenceDeltasAhead },
  { version: 23, name: 'task keys in their own narrow table with the trigram index (a key search checks its candidates there, not in task rows)', sql: pgMigration023TaskKeysTable },
  { version: 24, name: 'compact Pending occurrences counted by block of seqs (a deep page is found by the counts, not by reading the rows before it)', sql: pgMigration024CompactSeqBlocks },
  { version: 28, name: 'the delete triggers of tasks plan their join with the deleted rows each time they fire (no plan kept from a first delete over empty tables)', sql: pgMigration028TransitionJoinsPlannedPerStatement },
  { version: 30, name: 'the UPDATE trigger of tasks plans its joins of old and new rows for a statement of more than 100 rows (no plan kept from a first update over empty tables)', sql: pgMigration030BulkUpdatesPlannedPerStatement },
  { version: 31, name: 'a queue\'s claim order breaks ties of created_at by seq (insertion order), read off the claim index', sql: pgMigration031ClaimOrderTieBreak },
];
