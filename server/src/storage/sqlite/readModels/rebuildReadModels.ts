import type { Database } from 'better-sqlite3';
import { rebuildFailureGroupsSql } from '../migrations/006_search_failures_latency.js';
import { RUN_BUCKET_MERGE } from './runBucketMerge.js';
import { hasPendingOccurrences } from '../schedules/spillPendingOccurrences.js';

/**
 * Recomputes every read model from the task table (and runs_audit for the runs of inline
 * recurring rows), set-based: three scans of the task table whatever its size, each folding its
 * rows into the target table keyed by the group (an upsert per row into a small keyed table is
 * cheaper than sorting the whole table for a GROUP BY), plus one for the set of (type, handler) pairs
 * that type and search filters resolve against; the per-day tables are then folded from
 * the per-hour ones (a day is 24 whole hours: sums, least minimum, greatest maximum).
 *
 * The scans name no index (`NOT INDEXED`): walking a secondary index would fetch every row out
 * of order. Exact for the task counters; the run buckets cover the runs whose history is kept:
 * the last run of each one-shot row and every audited run of recurring rows (runs_audit drives
 * that join: it holds only recurring rows' runs).
 *
 * `compact`: the schema has compact Pending occurrences (migration 15). Each one is counted as the
 * task row it stands for (Pending, an occurrence, not recurring; queue and type of its schedule,
 * its own creation time, its handler or its schedule's), as the writers counted it when they wrote
 * it (`ReadModelDeltas.insertedCompact`); it has no run yet, so no run bucket. Three scans of the
 * (small-rowed) compact table, each row joined to its schedule row through its schedule number.
 */
export function rebuildReadModelsSqlFor(compact: boolean): string {
  return `
DELETE FROM stat_tasks; DELETE FROM stat_created_hour; DELETE FROM stat_created_day;
DELETE FROM stat_runs_hour; DELETE FROM stat_runs_day;

INSERT INTO stat_tasks (queue, type, status, is_recurring, is_occurrence, n)
  SELECT queue, type, status, is_recurring, parent_task_id IS NOT NULL, 1 FROM tasks NOT INDEXED WHERE true
  ON CONFLICT (queue, type, status, is_recurring, is_occurrence) DO UPDATE SET n = n + 1;

INSERT INTO stat_created_hour (hour, type, status, n)
  SELECT created_at / 3600000, type, status, 1 FROM tasks NOT INDEXED WHERE true
  ON CONFLICT (hour, type, status) DO UPDATE SET n = n + 1;
${compact ? COMPACT_COUNTS : ''}
INSERT INTO stat_created_day (day, type, status, n)
  SELECT hour / 24, type, status, SUM(n) FROM stat_created_hour GROUP BY 1, 2, 3;

INSERT INTO stat_runs_hour (bucket, type, queue, completed, failed, dur_sum, dur_count, dur_min, dur_max)
  SELECT ended / 3600000, type, queue,
         outcome IS 'Completed', outcome IS 'Failed',
         CASE WHEN outcome = 'Completed' AND dur IS NOT NULL THEN dur ELSE 0 END,
         outcome IS 'Completed' AND dur IS NOT NULL,
         CASE WHEN outcome = 'Completed' THEN dur END,
         CASE WHEN outcome = 'Completed' THEN dur END
  FROM (
    SELECT last_execution_at AS ended, type, queue, last_outcome AS outcome, execution_time_ms AS dur
      FROM tasks NOT INDEXED WHERE is_recurring = 0 AND run_count > 0 AND last_execution_at IS NOT NULL
    UNION ALL
    SELECT r.executed_at, t.type, t.queue, r.status, r.execution_time_ms
      FROM runs_audit r CROSS JOIN tasks t ON t.id = r.task_id WHERE t.is_recurring = 1
  ) WHERE true
  ${RUN_BUCKET_MERGE};
INSERT INTO stat_runs_day (bucket, type, queue, completed, failed, dur_sum, dur_count, dur_min, dur_max)
  SELECT bucket / 24, type, queue, SUM(completed), SUM(failed), SUM(dur_sum), SUM(dur_count), MIN(dur_min), MAX(dur_max)
    FROM stat_runs_hour GROUP BY 1, 2, 3;

INSERT OR IGNORE INTO monitor_type_handlers (type, handler) SELECT type, handler FROM tasks NOT INDEXED;
${compact ? `INSERT OR IGNORE INTO monitor_type_handlers (type, handler)
  SELECT DISTINCT s.type, COALESCE(p.handler, s.handler) FROM pending_occurrences p NOT INDEXED JOIN occurrence_schedules r ON r.ref = p.schedule_ref JOIN tasks s ON s.id = r.schedule_id;` : ''}
`;
}

/** Compact occurrences into the task counters (before the per-day fold): see rebuildReadModelsSqlFor. */
const COMPACT_COUNTS = `
INSERT INTO stat_tasks (queue, type, status, is_recurring, is_occurrence, n)
  SELECT s.queue, s.type, 'Pending', 0, 1, p.n
    FROM (SELECT schedule_ref, COUNT(*) AS n FROM pending_occurrences GROUP BY schedule_ref) p
    JOIN occurrence_schedules r ON r.ref = p.schedule_ref JOIN tasks s ON s.id = r.schedule_id WHERE true
  ON CONFLICT (queue, type, status, is_recurring, is_occurrence) DO UPDATE SET n = n + excluded.n;
INSERT INTO stat_created_hour (hour, type, status, n)
  SELECT p.created_at / 3600000, s.type, 'Pending', 1 FROM pending_occurrences p NOT INDEXED JOIN occurrence_schedules r ON r.ref = p.schedule_ref JOIN tasks s ON s.id = r.schedule_id WHERE true
  ON CONFLICT (hour, type, status) DO UPDATE SET n = n + 1;
`;

/** The rebuild for the current schema (every migration applied; see rebuildReadModelsSqlFor). */
export const rebuildReadModelsSql = rebuildReadModelsSqlFor(true);

/** Recomputes the read models and the failure groups in one write transaction. */
export function rebuildReadModels(db: Database): void {
  db.transaction(() => {
    db.exec(rebuildReadModelsSqlFor(hasPendingOccurrences(db)));
    db.exec(rebuildFailureGroupsSql);
  }).immediate();
}
