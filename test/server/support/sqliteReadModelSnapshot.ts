import type { Database } from 'better-sqlite3';

export type SqliteReadModelRow = Record<string, number | string | null>;

/** Each SQLite read model's non-empty rows, in key order (sample task ids left out: a rebuild names any task of the group). */
const TABLES: Record<string, string> = {
  stat_tasks: 'SELECT * FROM stat_tasks WHERE n <> 0 ORDER BY queue, type, status, is_recurring, is_occurrence',
  stat_created_hour: 'SELECT * FROM stat_created_hour WHERE n <> 0 ORDER BY hour, type, status',
  stat_created_day: 'SELECT * FROM stat_created_day WHERE n <> 0 ORDER BY day, type, status',
  stat_runs_hour: 'SELECT * FROM stat_runs_hour WHERE completed + failed > 0 ORDER BY bucket, type, queue',
  stat_runs_day: 'SELECT * FROM stat_runs_day WHERE completed + failed > 0 ORDER BY bucket, type, queue',
  failure_groups_hour: 'SELECT bucket, type, fingerprint, n, first_seen, last_seen FROM failure_groups_hour ORDER BY bucket, type, fingerprint',
  failure_groups_day: 'SELECT bucket, type, fingerprint, n, first_seen, last_seen FROM failure_groups_day ORDER BY bucket, type, fingerprint',
};

/** The read models as rows, to compare the live ones with a rebuild from the task table. */
export function snapshotSqliteReadModels(db: Database): Record<string, SqliteReadModelRow[]> {
  const out: Record<string, SqliteReadModelRow[]> = {};
  for (const [name, sql] of Object.entries(TABLES)) out[name] = db.prepare(sql).all() as SqliteReadModelRow[];
  return out;
}
