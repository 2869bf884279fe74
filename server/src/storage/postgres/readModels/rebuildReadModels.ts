import { finerRebuilt } from '../../common/readModels/coarserBucketing.js';
import { COUNTERS, type Counter, type CounterSource } from '../../common/readModels/counters.js';
import { FAILED_CTE, groupedInsert } from './readModelDeltas.js';
import { foldSql } from './readModelRollup.js';

/**
 * Each source's facts as the tables hold them now, as the CTEs the description's counters read
 * (`common/readModels/counters.ts`), the same facts as SQLite's rebuild:
 * - moves: every task row in its status (n = 1), and every compact Pending occurrence as the task
 *   row it stands for (the view pending_occurrence_tasks, migration 19);
 * - ran: the runs whose history is kept: the last run of each one-shot row and every audited run
 *   of a recurring row (runs_audit holds only recurring rows' runs);
 * - failed: the failed ones of those, with their failure group's fingerprint (FAILED_CTE, as the
 *   triggers and the fast commit define it).
 * Each is read once by the statement that names it, so the planner inlines it (no materialized copy of the table).
 */
const MOVES = `moves (queue, type, status, is_recurring, is_occurrence, created_at, n) AS (
    SELECT queue, type, status, is_recurring, (parent_task_id IS NOT NULL)::int, created_at, 1 FROM tasks
    UNION ALL SELECT queue, type, status, is_recurring, is_occurrence, created_at, 1 FROM pending_occurrence_tasks)`;
const RAN = `ran (id, type, queue, last_execution_at, last_outcome, execution_time_ms, exception) AS (
    SELECT id, type, queue, last_execution_at, last_outcome, execution_time_ms, exception
      FROM tasks WHERE is_recurring = 0 AND run_count > 0 AND last_execution_at IS NOT NULL
    UNION ALL
    SELECT t.id, t.type, t.queue, r.executed_at, r.status, r.execution_time_ms, r.exception
      FROM runs_audit r JOIN tasks t ON t.id = r.task_id WHERE t.is_recurring = 1)`;
const FACTS: Record<CounterSource, readonly string[]> = {
  moves: [MOVES],
  ran: [RAN],
  failed: [RAN, FAILED_CTE],
};

/** The statement recomputing one counter's rolled-up table: folded from a finer counter already rebuilt, or grouped from its source's facts. */
function counterRebuildSql(c: Counter, rebuilt: readonly Counter[]): string {
  const folded = finerRebuilt(c, rebuilt);
  if (folded === undefined) return `WITH ${FACTS[c.source].join(',\n  ')}\n  ${groupedInsert(c, c.table)};`;
  const { finer, ratio } = folded;
  const keys = [`${finer.keys[0]!.column} / ${ratio}`, ...finer.keys.slice(1).map((k) => k.column)];
  const groupBy = keys.map((_, i) => i + 1).join(', ');
  return `INSERT INTO ${c.table} (${[...c.keys.map((k) => k.column), ...c.sums.map((s) => s.column)].join(', ')})
  SELECT ${[...keys, ...c.sums.map(foldSql)].join(', ')} FROM ${finer.table} GROUP BY ${groupBy};`;
}

/**
 * Recomputes every read model of `counters` from the task table (and runs_audit for the runs of
 * inline recurring rows), generated from their entries, as SQLite's rebuild: with writers of
 * tasks kept out (SHARE lock) each counter's rolled-up table and delta rows are emptied, then its
 * groups are aggregated from its source's facts by the same expressions the deltas use; a counter
 * that is a coarser bucketing of one rebuilt before it (a day of 24 hours) is folded from that
 * one's rows by the roll-up's fold. Then the set of (type, handler) pairs that type and search
 * filters resolve against, from task rows and compact Pending occurrences (whose handler may differ
 * from their schedule's). A counter that keeps only its newest buckets (queue throughput) is a
 * window of recent writes, not of history, and is left as it is. Run under the roll-up's advisory lock.
 */
export function pgRebuildReadModelsSql(description: readonly Counter[] = COUNTERS): string {
  const counters = description.filter((c) => c.keep === undefined);
  const rebuilt: Counter[] = [];
  const statements = counters.map((c) => {
    const sql = counterRebuildSql(c, rebuilt);
    rebuilt.push(c);
    return sql;
  });
  return `LOCK TABLE tasks IN SHARE MODE;
${counters.map((c) => `DELETE FROM ${c.table}; DELETE FROM ${c.table}_delta;`).join('\n')}
${statements.join('\n')}
INSERT INTO monitor_type_handlers (type, handler) SELECT DISTINCT type, handler FROM tasks ON CONFLICT DO NOTHING;
INSERT INTO monitor_type_handlers (type, handler) SELECT DISTINCT type, handler FROM pending_occurrence_tasks ON CONFLICT DO NOTHING;
`;
}
