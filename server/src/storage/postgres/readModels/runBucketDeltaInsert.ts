/**
 * The INSERT that adds the finished runs of `source` (task rows as their run ended:
 * last_outcome, last_execution_at, execution_time_ms) to the delta table of the run buckets
 * `table`, one row per bucket of `bucketMs`, type and queue: completed and failed counts, and the
 * sum, count, minimum and maximum of the durations of completed runs. The engine's fast commit
 * writes with it, and PostgreSQL migration 2's trigger bodies were written with this very text:
 * the migration is history, so the text never changes (a new rule is a new function).
 */
export const runBucketDeltaInsert = (table: string, bucketMs: number, source: string) => `INSERT INTO ${table}_delta (bucket, type, queue, completed, failed, dur_sum, dur_count, dur_min, dur_max)
    SELECT last_execution_at / ${bucketMs}, type, queue,
           COUNT(*) FILTER (WHERE last_outcome = 'Completed'), COUNT(*) FILTER (WHERE last_outcome = 'Failed'),
           COALESCE(SUM(execution_time_ms) FILTER (WHERE last_outcome = 'Completed'), 0),
           COUNT(execution_time_ms) FILTER (WHERE last_outcome = 'Completed'),
           MIN(execution_time_ms) FILTER (WHERE last_outcome = 'Completed'),
           MAX(execution_time_ms) FILTER (WHERE last_outcome = 'Completed')
      FROM ${source} GROUP BY 1, 2, 3`;
