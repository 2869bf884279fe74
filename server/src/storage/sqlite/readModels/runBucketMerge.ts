/**
 * How a run-bucket row (stat_runs_hour, stat_runs_day) absorbs another of the same bucket, type
 * and queue: the counts and the duration sum add up; the minimum and the maximum keep the more
 * extreme of the two, a NULL (no measured duration) leaving the other side as it is. The
 * SQLite delta writer and the rebuild upsert with it, and SQLite migration 2's triggers were
 * written with this very text: the migration is history, so the text never changes (a new rule
 * is a new constant).
 */
export const RUN_BUCKET_MERGE = `ON CONFLICT (bucket, type, queue) DO UPDATE SET
    completed = completed + excluded.completed,
    failed    = failed + excluded.failed,
    dur_sum   = dur_sum + excluded.dur_sum,
    dur_count = dur_count + excluded.dur_count,
    dur_min   = CASE WHEN excluded.dur_min IS NULL THEN dur_min WHEN dur_min IS NULL OR excluded.dur_min < dur_min THEN excluded.dur_min ELSE dur_min END,
    dur_max   = CASE WHEN excluded.dur_max IS NULL THEN dur_max WHEN dur_max IS NULL OR excluded.dur_max > dur_max THEN excluded.dur_max ELSE dur_max END`;
