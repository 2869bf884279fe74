/**
 * The one description of the read-model counters, in terms neither backend owns: each counter
 * names its table, the set of facts it counts, how a fact finds its group (keys) and what the
 * group adds up (sums). PostgreSQL generates its trigger, fast-commit, roll-up and rebuild SQL
 * from it (`postgres/readModels/`); SQLite generates its per-transaction keeper, its upserts and
 * its rebuild from it (`sqlite/readModels/counterKeeper.ts`, `counterUpserts.ts`,
 * `rebuildReadModels.ts`; docs/decisions/read-model-counters-described-once.md).
 *
 * A counter reads one of three sets of facts, every fact named by the task-row column it comes from:
 * - `moves`: rows entering a status group (n = 1) or leaving one (n = -1): new rows, deleted rows,
 *   status or group changes. Fields: queue, type, status, is_recurring, is_occurrence, created_at, n.
 * - `ran`: one fact per finished run (run_count went up), with the row's values after the run.
 *   Fields: id, type, queue, last_execution_at, last_outcome, execution_time_ms, exception.
 * - `failed`: the facts of `ran` whose outcome is Failed, plus `fingerprint` (the failure group's
 *   name, from the exception).
 */

export type CounterSource = 'moves' | 'ran' | 'failed';

/** The fields of each source's facts. */
export interface SourceFields {
  moves: 'queue' | 'type' | 'status' | 'is_recurring' | 'is_occurrence' | 'created_at' | 'n';
  ran: 'id' | 'type' | 'queue' | 'last_execution_at' | 'last_outcome' | 'execution_time_ms' | 'exception';
  failed: 'id' | 'type' | 'last_execution_at' | 'fingerprint';
}

/** The fields that may be null (a run without a measured duration, or without an error text); every other field never is. */
const MAY_BE_NULL: ReadonlySet<string> = new Set(['ran.execution_time_ms', 'ran.exception']);

/** Whether the facts of `source` may have a null `field` (a sum of it then needs a NULL case). */
export const fieldMayBeNull = (source: CounterSource, field: string): boolean => MAY_BE_NULL.has(`${source}.${field}`);

/** One group column: the fact's field (`from`, default the column's own name), divided by `bucketMs` and truncated when given. */
export interface CounterKey<S extends CounterSource = CounterSource> {
  column: string;
  from?: SourceFields[S];
  bucketMs?: number;
}

/** Only the facts whose run ended with this outcome are aggregated (ran only). */
export type OutcomeFilter = 'Completed' | 'Failed';

/**
 * One aggregated column of a group:
 * - `sum` of a field (`empty`: the value of a group without any such fact; otherwise null);
 * - `count` of facts, or of facts whose field `of` is not null;
 * - `min` / `max` of a field (null when none);
 * - `latest`: the field `of` of the fact with the greatest `by` (ties: the greatest `of`); the
 *   table keeps that greatest `by` in column `byColumn` to merge two groups.
 * `outcome` restricts a sum to the facts of runs with that outcome.
 */
export type CounterSum<S extends CounterSource = CounterSource> = { column: string; outcome?: OutcomeFilter } & (
  | { agg: 'sum'; of: SourceFields[S]; empty?: 0 }
  | { agg: 'count'; of?: SourceFields[S] }
  | { agg: 'min' | 'max'; of: SourceFields[S] }
  | { agg: 'latest'; of: SourceFields[S]; by: SourceFields[S]; byColumn: string }
);

/** One read model kept by deltas. */
export interface Counter<S extends CounterSource = CounterSource> {
  /** The read model's table. */
  table: string;
  source: S;
  keys: readonly CounterKey<S>[];
  sums: readonly CounterSum<S>[];
  /** A group whose sums all net to zero is left out (a move that changed nothing). */
  netted?: boolean;
  /**
   * Only the groups of the newest `keep` + 1 values of the first key (a bucket) are kept: older
   * ones are deleted as newer ones are written (SQLite at each write transaction; PostgreSQL at
   * each roll-up).
   */
  keep?: number;
}

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** The bucket of queue throughput. */
export const THROUGHPUT_BUCKET_MS = 10_000;

/** One description, checked against its source's fields. */
export const counter = <S extends CounterSource>(c: Counter<S>): Counter<S> => c;

const statusGroups = (table: string, column: string, bucketMs: number) => counter({
  table, source: 'moves', netted: true,
  keys: [{ column, from: 'created_at', bucketMs }, { column: 'type' }, { column: 'status' }],
  sums: [{ column: 'n', agg: 'sum', of: 'n' }],
});
const runBuckets = (table: string, bucketMs: number) => counter({
  table, source: 'ran',
  keys: [{ column: 'bucket', from: 'last_execution_at', bucketMs }, { column: 'type' }, { column: 'queue' }],
  sums: [
    { column: 'completed', agg: 'count', outcome: 'Completed' },
    { column: 'failed', agg: 'count', outcome: 'Failed' },
    { column: 'dur_sum', agg: 'sum', of: 'execution_time_ms', outcome: 'Completed', empty: 0 },
    { column: 'dur_count', agg: 'count', of: 'execution_time_ms', outcome: 'Completed' },
    { column: 'dur_min', agg: 'min', of: 'execution_time_ms', outcome: 'Completed' },
    { column: 'dur_max', agg: 'max', of: 'execution_time_ms', outcome: 'Completed' },
  ],
});
const failureGroups = (table: string, bucketMs: number) => counter({
  table, source: 'failed',
  keys: [{ column: 'bucket', from: 'last_execution_at', bucketMs }, { column: 'type' }, { column: 'fingerprint' }],
  sums: [
    { column: 'n', agg: 'count' },
    { column: 'first_seen', agg: 'min', of: 'last_execution_at' },
    { column: 'last_seen', agg: 'max', of: 'last_execution_at' },
    { column: 'sample_task_id', agg: 'latest', of: 'id', by: 'last_execution_at', byColumn: 'last_seen' },
  ],
});

/** Every read model kept by deltas, one entry each. */
export const COUNTERS: readonly Counter[] = [
  counter({
    table: 'stat_tasks', source: 'moves', netted: true,
    keys: [{ column: 'queue' }, { column: 'type' }, { column: 'status' }, { column: 'is_recurring' }, { column: 'is_occurrence' }],
    sums: [{ column: 'n', agg: 'sum', of: 'n' }],
  }),
  statusGroups('stat_created_hour', 'hour', HOUR_MS),
  statusGroups('stat_created_day', 'day', DAY_MS),
  runBuckets('stat_runs_hour', HOUR_MS),
  runBuckets('stat_runs_day', DAY_MS),
  failureGroups('failure_groups_hour', HOUR_MS),
  failureGroups('failure_groups_day', DAY_MS),
  counter({
    table: 'stat_queue_finished_10s', source: 'ran', keep: 12,
    keys: [{ column: 'bucket', from: 'last_execution_at', bucketMs: THROUGHPUT_BUCKET_MS }, { column: 'queue' }],
    sums: [{ column: 'n', agg: 'count' }],
  }),
];
