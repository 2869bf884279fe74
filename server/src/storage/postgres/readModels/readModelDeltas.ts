/**
 * The one description of PostgreSQL's read-model deltas. Two writers append them: the statement
 * triggers on `tasks` (every writer but one; installed by migration 13 from this file) and the
 * engine's fast commit (which appends its own and has the UPDATE triggers step aside). Both build
 * their SQL here, so a new counter is one entry of COUNTERS and both follow.
 *
 * A counter reads one of three row sets, each a CTE both writers define with these columns:
 * - `moves (queue, type, status, is_recurring, is_occurrence, created_at, n)`: rows entering a
 *   status group (n = 1) or leaving one (n = -1): new rows, deleted rows, status or group changes;
 * - `ran (id, type, queue, last_execution_at, last_outcome, execution_time_ms, exception)`: one
 *   row per finished run (run_count went up), with the row's values after the run;
 * - `failed (id, type, last_execution_at, fingerprint)`: the failed ones among `ran`.
 */

type Source = 'moves' | 'ran' | 'failed';

/** One read model's delta table and how a set of rows adds to it. */
interface Counter {
  /** The read model (its delta table is `<table>_delta`). */
  table: string;
  source: Source;
  /** Group columns: [column, expression over the source]. */
  keys: readonly (readonly [string, string])[];
  /** Aggregated columns: [column, aggregate over the source]. */
  sums: readonly (readonly [string, string])[];
  /** Groups left out (e.g. a move that nets to nothing). */
  having?: string;
}

const HOUR = 3_600_000;
const DAY = 86_400_000;
const THROUGHPUT_BUCKET = 10_000;

const statusGroups = (table: string, key: string, bucketMs: number): Counter => ({
  table, source: 'moves', keys: [[key, `created_at / ${bucketMs}`], ['type', 'type'], ['status', 'status']], sums: [['n', 'SUM(n)']], having: 'SUM(n) <> 0',
});
const completed = (agg: string) => `${agg} FILTER (WHERE last_outcome = 'Completed')`;
const runBuckets = (table: string, bucketMs: number): Counter => ({
  table, source: 'ran',
  keys: [['bucket', `last_execution_at / ${bucketMs}`], ['type', 'type'], ['queue', 'queue']],
  sums: [
    ['completed', completed('COUNT(*)')], ['failed', `COUNT(*) FILTER (WHERE last_outcome = 'Failed')`],
    ['dur_sum', `COALESCE(${completed('SUM(execution_time_ms)')}, 0)`], ['dur_count', completed('COUNT(execution_time_ms)')],
    ['dur_min', completed('MIN(execution_time_ms)')], ['dur_max', completed('MAX(execution_time_ms)')],
  ],
});
const failureGroups = (table: string, bucketMs: number): Counter => ({
  table, source: 'failed',
  keys: [['bucket', `last_execution_at / ${bucketMs}`], ['type', 'type'], ['fingerprint', 'fingerprint']],
  sums: [
    ['n', 'COUNT(*)'], ['first_seen', 'MIN(last_execution_at)'], ['last_seen', 'MAX(last_execution_at)'],
    ['sample_task_id', '(array_agg(id ORDER BY last_execution_at DESC, id DESC))[1]'],
  ],
});

/** Every read model kept by deltas, one entry each. */
export const COUNTERS: readonly Counter[] = [
  {
    table: 'stat_tasks', source: 'moves',
    keys: [['queue', 'queue'], ['type', 'type'], ['status', 'status'], ['is_recurring', 'is_recurring'], ['is_occurrence', 'is_occurrence']],
    sums: [['n', 'SUM(n)']], having: 'SUM(n) <> 0',
  },
  statusGroups('stat_created_hour', 'hour', HOUR),
  statusGroups('stat_created_day', 'day', DAY),
  runBuckets('stat_runs_hour', HOUR),
  runBuckets('stat_runs_day', DAY),
  failureGroups('failure_groups_hour', HOUR),
  failureGroups('failure_groups_day', DAY),
  {
    table: 'stat_queue_finished_10s', source: 'ran',
    keys: [['bucket', `last_execution_at / ${THROUGHPUT_BUCKET}`], ['queue', 'queue']], sums: [['n', 'COUNT(*)']],
  },
];

/** The `failed` row set, defined over `ran` the same way for both writers. */
export const FAILED_CTE = `failed AS MATERIALIZED (SELECT id, type, last_execution_at, svc_failure_fingerprint(exception) AS fingerprint
    FROM ran WHERE last_outcome = 'Failed')`;

/** The INSERT that appends one counter's deltas from its row set. */
function deltaInsert(c: Counter): string {
  const cols = [...c.keys, ...c.sums];
  const groupBy = c.keys.map((_, i) => i + 1).join(', ');
  return `INSERT INTO ${c.table}_delta (${cols.map(([col]) => col).join(', ')})
       SELECT ${cols.map(([, expr]) => expr).join(', ')} FROM ${c.source} GROUP BY ${groupBy}${c.having ? ` HAVING ${c.having}` : ''}`;
}

/**
 * The delta INSERTs of the counters whose row sets a statement has (`sources`), each as a CTE
 * `<table>_d AS (INSERT ...)` to put in a WITH after the row sets' own CTEs.
 */
export function deltaInsertCtes(sources: readonly Source[]): string[] {
  return COUNTERS.filter((c) => sources.includes(c.source)).map((c) => `${c.table}_d AS (\n    ${deltaInsert(c)})`);
}

/**
 * One statement (for a trigger function's body) that defines the row sets `ctes` and appends the
 * deltas of every counter reading them: a WITH of the row sets and all but the last INSERT, then
 * the last INSERT as the statement itself (PL/pgSQL runs no bare SELECT).
 */
export function deltaStatement(ctes: readonly string[], sources: readonly Source[]): string {
  const counters = COUNTERS.filter((c) => sources.includes(c.source));
  const last = counters[counters.length - 1]!;
  const before = counters.slice(0, -1).map((c) => `${c.table}_d AS (\n    ${deltaInsert(c)})`);
  return `WITH ${[...ctes, ...before].join(',\n  ')}\n  ${deltaInsert(last)};`;
}
