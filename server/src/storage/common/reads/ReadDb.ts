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
  /** The task column that numbers rows in insertion order (it breaks ties of a sort). */
  readonly insertionOrder: string;
  /** One ORDER BY term; NULLs sort lowest on both backends (first ascending, last descending). */
  orderKey(column: string, descending: boolean): string;
  /** True where `column` contains the text bound to its one `?`, letters compared case-insensitively. */
  contains(column: string): string;
  /** Tasks whose request has every term (a word or a quoted phrase) as a phrase: a condition on tasks. */
  requestMatch(terms: readonly string[]): SqlFragment;
  /** Tasks whose key contains `term`, letters compared case-insensitively: a condition on tasks. */
  keyContains(term: string): SqlFragment;
  /** Tasks that meet any of the conditions, each condition read by its own index. */
  anyOf(conditions: readonly string[]): string;
  /**
   * Whether statements run at once (PostgreSQL: on pooled connections, so a list reads its count
   * and its page together) or one after the other on one connection (SQLite: a list picks its
   * index after the count). A selective match is read once on both.
   */
  readonly concurrentReads: boolean;
  /** A JSON array of the group's values of the integer `expression`, as text (an aggregate). */
  jsonIntegerArray(expression: string): string;
  /** A SELECT of the integers in the JSON array bound to its one `?` (a list of any length as one parameter). */
  readonly jsonIntegers: string;
  /**
   * True where `column` is one of the integers in the JSON array bound to its one `?`, the planner
   * knowing how many there are: read as one index read per integer.
   */
  amongIntegers(column: string): string;
  /**
   * A FROM clause: for each integer in the JSON array bound to its one `?`, the rows of `table`
   * (named `x`) whose `key` is among those `rows(value)` selects (a SELECT of `key`, with its own
   * ORDER BY and LIMIT): a few rows of each of many index ranges, each range read on its own.
   */
  eachRows(table: string, key: string, rows: (value: string) => string): string;
  /** `column` hidden from the planner's choice of index (SQLite's unary +; PostgreSQL plans alone). */
  unhinted(column: string): string;
  /** A read answering one row `{ v }`: the schema version applied to the store. */
  readonly schemaVersionSql: string;
  /** The newest schema version this code knows (its last migration). */
  readonly latestSchemaVersion: number;
  /**
   * Where the store keeps each request's words in a table beside its task's insertion order and
   * creation time (PostgreSQL's task_search): an argument search alone, listed by creation time,
   * is counted and paged there, and only the page's task rows are read.
   */
  requestWords?: RequestWordsDialect;
  /**
   * Where the store keeps the task keys in a table beside their task's insertion order and
   * creation time (PostgreSQL's task_keys): a search term that can only be a key, alone in a list
   * by creation time, is counted and paged there, and only the page's task rows are read.
   */
  taskKeys?: TaskKeysDialect;
  /** The search rows and their full-text indexes, where the store keeps them (SQLite). */
  searchRows?: SearchRowsDialect;
}

/** A table of request words with the columns `seq` (the task's insertion order) and `created_at` (its creation time). */
export interface RequestWordsDialect {
  readonly table: string;
  /** The condition on the table's rows whose request has every term (a word or a quoted phrase) as a phrase. */
  match(terms: readonly string[]): SqlFragment;
}

/** A table of task keys with the columns `seq` (the task's insertion order) and `created_at` (its creation time). */
export interface TaskKeysDialect {
  readonly table: string;
  /** The condition on the table's rows whose key contains `term`, letters compared case-insensitively. */
  match(term: string): SqlFragment;
}

/** A piece of SQL and the values of its `?` placeholders, in order. */
export interface SqlFragment {
  sql: string;
  params: unknown[];
}

/**
 * SQLite's search rows: one small row a task (its key, the group columns, the status) numbered in
 * task insertion order, with full-text indexes of the request and the key over those numbers.
 */
export interface SearchRowsDialect {
  /** The search rows whose request has every term as a phrase: a SELECT of their `id`. */
  requestIds(terms: readonly string[]): SqlFragment;
  /** The search rows whose key contains `term`: a SELECT of their `id`; undefined without the key index or for a term too short for it. */
  keyIds(term: string): SqlFragment | undefined;
  /** The condition on tasks whose search row is among `ids` (a SELECT of `id`). */
  tasksOf(ids: string): string;
  /** Whether the search rows carry the group columns (queue, type, recurring, occurrence, creation time). */
  readonly groupColumns: boolean;
  /** Whether the search rows carry their task's status. */
  readonly status: boolean;
  /** A read answering `ordered` = 1 while the search rows' order is creation-time order; undefined where not recorded. */
  readonly orderedSql?: string;
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
