import type { SchemaFeatures } from '../SchemaFeatures.js';

/** The read models the monitoring reads, by their SQLite table names. */
export type ReadModel =
  | 'stat_tasks'
  | 'stat_created_hour'
  | 'stat_created_day'
  | 'stat_runs_hour'
  | 'stat_runs_day'
  | 'stat_queue_finished_10s'
  | 'failure_groups_hour'
  | 'failure_groups_day';

/**
 * What differs between the backends in the text of a monitoring read. Placeholders are written
 * `?` everywhere; a backend that numbers them does so when it runs the statement.
 */
export interface ReadDialect {
  readonly name: 'sqlite' | 'postgres';
  /** The relation a read model is read from (a table, or a view that folds pending deltas in). */
  model(name: ReadModel): string;
  /** The sum of `value` over the rows of the group that satisfy `condition` (NULL when none do). */
  sumWhere(value: string, condition: string): string;
  /** An index the planner must walk (a range read, a partial index's count; empty where the planner needs no hint). */
  indexedBy(index: string): string;
  /** The `value` of the group's row with the largest `by` (ties: the largest value). */
  latestOf(value: string, by: string): string;
}

/**
 * A monitoring read's view of a store: its dialect, the optional structures it has, and one
 * async query that answers rows. SQLite prepares each SQL text once; PostgreSQL runs it on the pool.
 */
export interface ReadDb {
  readonly dialect: ReadDialect;
  readonly features: SchemaFeatures;
  query<R>(sql: string, params?: readonly unknown[]): Promise<R[]>;
}

/** The first row of a read that always answers one (an aggregate without GROUP BY). */
export async function queryOne<R>(db: ReadDb, sql: string, params?: readonly unknown[]): Promise<R> {
  const [row] = await db.query<R>(sql, params);
  return row!;
}
