import type { PostgresStorage } from '../../../server/src/storage/postgres/PostgresStorage.js';

export type ReadModelRow = Record<string, number | string | null>;

/** Each read model summed over rolled-up rows and deltas, keyed by its dimensions. */
const VIEWS: Record<string, string> = {
  stat_tasks: `SELECT queue, type, status, is_recurring, is_occurrence, SUM(n) AS n FROM stat_tasks_v GROUP BY 1, 2, 3, 4, 5 HAVING SUM(n) <> 0`,
  stat_created_hour: `SELECT hour, type, status, SUM(n) AS n FROM stat_created_hour_v GROUP BY 1, 2, 3 HAVING SUM(n) <> 0`,
  stat_created_day: `SELECT day, type, status, SUM(n) AS n FROM stat_created_day_v GROUP BY 1, 2, 3 HAVING SUM(n) <> 0`,
  stat_runs_hour: `SELECT bucket, type, queue, SUM(completed) AS c, SUM(failed) AS f, ROUND(SUM(dur_sum)::numeric, 6) AS s, SUM(dur_count) AS dc,
    MIN(dur_min) AS mn, MAX(dur_max) AS mx FROM stat_runs_hour_v GROUP BY 1, 2, 3 HAVING SUM(completed) + SUM(failed) > 0`,
  stat_runs_day: `SELECT bucket, type, queue, SUM(completed) AS c, SUM(failed) AS f, ROUND(SUM(dur_sum)::numeric, 6) AS s, SUM(dur_count) AS dc,
    MIN(dur_min) AS mn, MAX(dur_max) AS mx FROM stat_runs_day_v GROUP BY 1, 2, 3 HAVING SUM(completed) + SUM(failed) > 0`,
  failure_groups_hour: `SELECT bucket, type, fingerprint, SUM(n) AS n, MIN(first_seen) AS fs, MAX(last_seen) AS ls FROM failure_groups_hour_v GROUP BY 1, 2, 3`,
  failure_groups_day: `SELECT bucket, type, fingerprint, SUM(n) AS n, MIN(first_seen) AS fs, MAX(last_seen) AS ls FROM failure_groups_day_v GROUP BY 1, 2, 3`,
};

export async function snapshotReadModels(storage: PostgresStorage): Promise<Record<string, ReadModelRow[]>> {
  const out: Record<string, ReadModelRow[]> = {};
  for (const [name, sql] of Object.entries(VIEWS)) out[name] = (await storage.query<ReadModelRow>(`${sql} ORDER BY 1, 2, 3`)).rows;
  return out;
}

