import type { QueryResultRow } from 'pg';
import { containsPattern } from '../../common/containsPattern.js';
import { COUNTERS } from '../../common/readModels/counters.js';
import type { ReadDb, ReadDialect, ReadModel, RequestWordsDialect, TaskKeysDialect } from '../../common/reads/ReadDb.js';
import { KEY_INDEX_MIN_CHARS } from '../../common/taskListTerms.js';
import { pgMigrations } from '../migrations/index.js';
import type { PostgresStorage } from '../PostgresStorage.js';

/** Columns that hold no NULL: ordered without a NULLS clause, so that a backward walk of their index serves DESC. */
const NOT_NULL = new Set(['created_at', 'status', 'type', 'queue', 'seq']);

/**
 * The relation each read model is read from, by the counters' description: a counter's rolled-up
 * rows and its pending deltas together (the view `<table>_v`), or for a counter that keeps only its
 * newest buckets its delta rows alone (the roll-up prunes them and never folds them).
 */
const modelRows = (name: ReadModel): string => (COUNTERS.find((c) => c.table === name)?.keep === undefined ? `${name}_v` : `${name}_delta`);

// task_search (kept by triggers on tasks) holds each request's words, with a GIN index, and the
// task's seq and creation time (migration 21). The index is read for the terms' rare words
// (svc_request_lookup, migration 14); the phrases are checked on the rows found, through
// ts_match_vq: a function call, which the planner does not take as an index condition (the
// operator @@ it would).
const REQUEST_WORDS: RequestWordsDialect = {
  table: 'task_search',
  match: (terms) => ({
    sql: `words @@ svc_request_lookup(?::text[])
      AND ts_match_vq(words, ${terms.map(() => `phraseto_tsquery('simple', svc_search_words(?))`).join(' && ')})`,
    params: [[...terms], ...terms],
  }),
};

// task_keys (kept by triggers on tasks, migration 23) holds the key of each task that has one,
// with its seq and creation time, and the trigram index: the candidates the index finds are
// checked against the keys of this narrow table (a few pages), not against task rows.
const TASK_KEYS: TaskKeysDialect = {
  table: 'task_keys',
  match: (term) =>
    [...term].length >= KEY_INDEX_MIN_CHARS
      ? // The trigram index (ILIKE compares letters case-insensitively).
        { sql: `task_key ILIKE ?`, params: [containsPattern(term)] }
      : // Too short for trigrams: every key, read from the narrow table.
        { sql: `strpos(lower(task_key), lower(?)) > 0`, params: [term] },
};

const POSTGRES_READS: ReadDialect = {
  name: 'postgres',
  model: modelRows,
  sumWhere: (value, condition) => `SUM(${value}) FILTER (WHERE ${condition})`,
  indexedBy: () => '',
  latestOf: (value, by) => `(array_agg(${value} ORDER BY ${by} DESC, ${value} DESC))[1]`,
  insertionOrder: 'seq',
  orderKey: (column, descending) =>
    `${column} ${descending ? 'DESC' : 'ASC'}${NOT_NULL.has(column) ? '' : descending ? ' NULLS LAST' : ' NULLS FIRST'}`,
  contains: (column) => `strpos(lower(${column}), lower(?)) > 0`,
  requestMatch: (terms) => {
    const match = REQUEST_WORDS.match(terms);
    return { sql: `seq IN (SELECT seq FROM ${REQUEST_WORDS.table} WHERE ${match.sql})`, params: match.params };
  },
  requestWords: REQUEST_WORDS,
  keyContains: (term) => {
    const match = TASK_KEYS.match(term);
    return { sql: `seq IN (SELECT seq FROM ${TASK_KEYS.table} WHERE ${match.sql})`, params: match.params };
  },
  taskKeys: TASK_KEYS,
  concurrentReads: true,
  jsonIntegerArray: (expression) => `json_agg(${expression})::text`,
  jsonIntegers: 'SELECT jsonb_array_elements_text(?::jsonb)::bigint',
  // The JSON array's text as an array's ('[1,2]' → '{1,2}'): the planner reads the bound value
  // and counts its elements, where it takes a set-returning function for 100 rows (and for a few
  // schedules would read the whole table rather than a few index ranges).
  amongIntegers: (column) => `${column} = ANY(translate(?, '[]', '{}')::bigint[])`,
  eachRows: (table, key, rows) =>
    `jsonb_array_elements_text(?::jsonb) AS g(v) CROSS JOIN LATERAL (SELECT * FROM ${table} WHERE ${key} IN (${rows('g.v::bigint')})) AS x`,
  unhinted: (column) => column,
  schemaVersionSql: `SELECT MAX(version) AS v FROM schema_migrations`,
  latestSchemaVersion: pgMigrations[pgMigrations.length - 1]!.version,
  // Each alternative its own indexed read, the rows their union: an OR in one WHERE would read the whole table.
  // One alternative is the condition itself: its rows read once, not their seq and then each row again.
  anyOf: (conditions) =>
    conditions.length === 1 ? `(${conditions[0]!})` : `seq IN (${conditions.map((c) => `SELECT seq FROM tasks WHERE ${c}`).join(' UNION ALL ')})`,
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
      // Migration 19: compact Pending occurrences, as SQLite's migration 15.
      pendingOccurrences: true,
      // Migration 24: compact occurrences counted by block of seqs, as SQLite's migration 20.
      compactSeqBlocks: true,
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
