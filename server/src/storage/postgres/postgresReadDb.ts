import type { QueryResultRow } from 'pg';
import type { ReadDb, ReadDialect, ReadModel } from '../common/reads/ReadDb.js';
import type { PostgresStorage } from './PostgresStorage.js';

/** The views that add the pending fast-commit deltas to each read model. */
const MODEL_VIEWS: Record<ReadModel, string> = {
  stat_tasks: 'stat_tasks_v',
  stat_created_hour: 'stat_created_hour_v',
  stat_created_day: 'stat_created_day_v',
  stat_runs_hour: 'stat_runs_hour_v',
  stat_runs_day: 'stat_runs_day_v',
  stat_queue_finished_10s: 'stat_queue_finished_10s_delta',
  failure_groups_hour: 'failure_groups_hour_v',
  failure_groups_day: 'failure_groups_day_v',
};

const POSTGRES_READS: ReadDialect = {
  name: 'postgres',
  model: (name) => MODEL_VIEWS[name],
  sumWhere: (value, condition) => `SUM(${value}) FILTER (WHERE ${condition})`,
  indexedBy: () => '',
  latestOf: (value, by) => `(array_agg(${value} ORDER BY ${by} DESC, ${value} DESC))[1]`,
};

/** `?` placeholders (outside quoted text) as PostgreSQL's `$1, $2, …`. */
export function numberPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?/g, (m) => (m === '?' ? `$${++n}` : m));
}

/** The monitoring reads over the store's pool; every optional structure exists in the PostgreSQL schema. */
export function postgresReadDb(storage: Pick<PostgresStorage, 'query'>): ReadDb {
  const numbered = new Map<string, string>();
  return {
    dialect: POSTGRES_READS,
    features: {
      typeHandlerSet: true,
      requestSearch: true,
      failureGroups: true,
      queueThroughput: true,
      searchRows: true,
      searchRowOrder: true,
      searchRowStatus: true,
      statusAuditChangedBy: true,
      traceContext: true,
      reservations: true,
    },
    async query<R>(sql: string, params?: readonly unknown[]): Promise<R[]> {
      let text = numbered.get(sql);
      if (text === undefined) {
        text = numberPlaceholders(sql);
        numbered.set(sql, text);
      }
      return (await storage.query<R & QueryResultRow>(text, params)).rows;
    },
  };
}
