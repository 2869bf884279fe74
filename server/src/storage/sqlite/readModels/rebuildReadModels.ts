import type { Database } from 'better-sqlite3';
import { finerRebuilt } from '../../common/readModels/coarserBucketing.js';
import { COUNTERS, type Counter, type CounterSum } from '../../common/readModels/counters.js';
import { hasPendingOccurrences } from '../schedules/spillPendingOccurrences.js';
import { upsertSql } from './counterUpserts.js';
import { keptCounters } from './keptCounters.js';

/**
 * Each source's facts as the task table holds them now, one row per fact, named by the fields of
 * common/readModels/counters.ts:
 * - moves: every task row in its status (n = 1); with `compact` (migration 15) every compact
 *   Pending occurrence too, as the task row it stands for (Pending, an occurrence, not recurring;
 *   queue and type of its schedule, its own creation time), as the writers counted it
 *   (`ReadModelDeltas.insertedCompact`);
 * - ran: the runs whose history is kept: the last run of each one-shot row and every audited run
 *   of a recurring row (runs_audit holds only recurring rows' runs, and drives that join);
 * - failed: the failed ones of those, with their failure group's fingerprint.
 * The scans name no index (`NOT INDEXED`): walking a secondary index would fetch every row out of order.
 */
function factsSql(source: Counter['source'], compact: boolean): string {
  const ran = `
    SELECT id, type, queue, last_execution_at, last_outcome, execution_time_ms, exception
      FROM tasks NOT INDEXED WHERE is_recurring = 0 AND run_count > 0 AND last_execution_at IS NOT NULL
    UNION ALL
    SELECT t.id, t.type, t.queue, r.executed_at, r.status, r.execution_time_ms, r.exception
      FROM runs_audit r CROSS JOIN tasks t ON t.id = r.task_id WHERE t.is_recurring = 1`;
  switch (source) {
    case 'moves':
      return `
    SELECT queue, type, status, is_recurring, parent_task_id IS NOT NULL AS is_occurrence, created_at, 1 AS n FROM tasks NOT INDEXED${compact ? `
    UNION ALL
    SELECT s.queue, s.type, 'Pending', 0, 1, p.created_at, 1
      FROM pending_occurrences p NOT INDEXED JOIN occurrence_schedules r ON r.ref = p.schedule_ref JOIN tasks s ON s.id = r.schedule_id` : ''}`;
    case 'ran':
      return ran;
    case 'failed':
      return `
    SELECT id, type, last_execution_at, svc_failure_fingerprint(exception) AS fingerprint FROM (${ran}) WHERE last_outcome = 'Failed'`;
  }
}

/** The value one fact adds to a sum's column, as the merge of counterUpserts.ts combines it. */
function factValue(s: CounterSum): string {
  const only = (v: string, otherwise = 'NULL') => (s.outcome === undefined ? v : `CASE WHEN last_outcome = '${s.outcome}' THEN ${v} ELSE ${otherwise} END`);
  switch (s.agg) {
    case 'count': return only(s.of === undefined ? '1' : `${s.of} IS NOT NULL`, '0');
    case 'sum': return s.empty !== undefined ? only(`COALESCE(${s.of}, ${s.empty})`, String(s.empty)) : only(s.of);
    case 'min':
    case 'max':
    case 'latest':
      return only(s.of);
  }
}

/** A group key's value from a fact: its field, bucketed when the key says so (integer division, as bucketOf). */
function keyValue(k: Counter['keys'][number]): string {
  const f = k.from ?? k.column;
  return k.bucketMs === undefined ? f : `${f} / ${k.bucketMs}`;
}

/** The statement recomputing one counter: from a finer counter already rebuilt, or from its source's facts. */
function counterRebuildSql(c: Counter, rebuilt: readonly Counter[], compact: boolean): string {
  const cols = [...c.keys.map((k) => k.column), ...c.sums.map((s) => s.column)];
  // The upsert's conflict clause, generated once for the deltas and the rebuild alike: folding a row at a time.
  const onConflict = upsertSql(c).slice(upsertSql(c).indexOf('ON CONFLICT'));
  const folded = finerRebuilt(c, rebuilt);
  if (folded !== undefined) {
    const { finer, ratio } = folded;
    const finerCols = [`${finer.keys[0]!.column} / ${ratio}`, ...finer.keys.slice(1).map((k) => k.column), ...finer.sums.map((s) => s.column)];
    return `INSERT INTO ${c.table} (${cols.join(', ')}) SELECT ${finerCols.join(', ')} FROM ${finer.table} WHERE true ${onConflict};`;
  }
  const values = [...c.keys.map(keyValue), ...c.sums.map(factValue)];
  return `INSERT INTO ${c.table} (${cols.join(', ')}) SELECT ${values.join(', ')} FROM (${factsSql(c.source, compact)}) WHERE true ${onConflict};`;
}

/**
 * Recomputes every read model of `counters` from the task table (and runs_audit for the runs of
 * inline recurring rows), generated from their entries: each counter's table emptied, then its
 * source's facts folded into it a row at a time by the same upsert the deltas use (cheaper than
 * sorting the whole table for a GROUP BY); a counter that is a coarser bucketing of one rebuilt
 * before it (a day of 24 hours) is folded from that one's rows. Then the set of (type, handler)
 * pairs that type and search filters resolve against. Exact for the task counters; the run
 * counters cover the runs whose history is kept (see factsSql). A counter that keeps only its
 * newest buckets (queue throughput: the last two minutes) is a window of recent writes, not of
 * history, and is left as it is. `compact`: the schema has compact Pending occurrences (migration 15).
 */
export function rebuildReadModelsSqlFor(compact: boolean, description: readonly Counter[] = COUNTERS): string {
  const counters = description.filter((c) => c.keep === undefined);
  const rebuilt: Counter[] = [];
  const statements = counters.map((c) => {
    const sql = counterRebuildSql(c, rebuilt, compact);
    rebuilt.push(c);
    return sql;
  });
  return `
${counters.map((c) => `DELETE FROM ${c.table};`).join(' ')}
${statements.join('\n')}
INSERT OR IGNORE INTO monitor_type_handlers (type, handler) SELECT type, handler FROM tasks NOT INDEXED;
${compact ? `INSERT OR IGNORE INTO monitor_type_handlers (type, handler)
  SELECT DISTINCT s.type, COALESCE(p.handler, s.handler) FROM pending_occurrences p NOT INDEXED JOIN occurrence_schedules r ON r.ref = p.schedule_ref JOIN tasks s ON s.id = r.schedule_id;` : ''}
`;
}

/** The rebuild for the current schema (every migration applied; see rebuildReadModelsSqlFor). */
export const rebuildReadModelsSql = rebuildReadModelsSqlFor(true);

/** Recomputes the read models of the description `db`'s task writer keeps in one write transaction. */
export function rebuildReadModels(db: Database): void {
  db.transaction(() => {
    db.exec(rebuildReadModelsSqlFor(hasPendingOccurrences(db), keptCounters(db)));
  }).immediate();
}
