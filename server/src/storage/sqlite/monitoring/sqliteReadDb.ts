import type { Database, Statement } from 'better-sqlite3';
import { containsPattern } from '../../common/containsPattern.js';
import type { SchemaFeatures } from '../../common/SchemaFeatures.js';
import { KEY_INDEX_MIN_CHARS } from '../../common/taskListTerms.js';
import type { ReadDb, ReadDialect, SearchRowsDialect } from '../../common/reads/ReadDb.js';
import { migrations } from '../migrations/index.js';
import { detectSchemaFeatures } from './detectSchemaFeatures.js';

/**
 * An FTS5 expression of the terms as phrases, all required. Each is quoted, so nothing in user
 * input is read as FTS5 syntax (operators, column filters, NEAR).
 */
const phrases = (terms: readonly string[]) => terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' AND ');

/** The search rows: the request index from migration 6, group columns and the trigram key index from 8. */
function searchRows(features: SchemaFeatures): SearchRowsDialect {
  return {
    requestIds: (terms) => ({ sql: `SELECT rowid AS id FROM task_request_fts WHERE task_request_fts MATCH ?`, params: [phrases(terms)] }),
    keyIds: (term) =>
      features.searchRows && [...term].length >= KEY_INDEX_MIN_CHARS
        ? { sql: `SELECT rowid AS id FROM task_key_fts WHERE task_key_fts MATCH ?`, params: [phrases([term])] }
        : undefined,
    tasksOf: (ids) => `id IN (SELECT s.task_id FROM task_search_rows s WHERE s.id IN (${ids}))`,
    groupColumns: features.searchRows,
    status: features.searchRowStatus,
    orderedSql: features.searchRowOrder ? `SELECT ordered FROM search_row_order WHERE id = 1` : undefined,
  };
}

function sqliteDialect(features: SchemaFeatures): ReadDialect {
  const rows = features.requestSearch ? searchRows(features) : undefined;
  return {
    name: 'sqlite',
    model: (name) => name,
    sumWhere: (value, condition) => `SUM(CASE WHEN ${condition} THEN ${value} END)`,
    indexedBy: (index) => `INDEXED BY ${index}`,
    // The largest zero-padded "by + value", less its 16-digit prefix.
    latestOf: (value, by) => `substr(MAX(printf('%016d', ${by}) || ${value}), 17)`,
    insertionOrder: 'rowid',
    // SQLite sorts NULL lowest of its own.
    orderKey: (column, descending) => `${column} ${descending ? 'DESC' : 'ASC'}`,
    contains: (column) => `instr(lower(${column}), lower(?)) > 0`,
    requestMatch: (terms) => {
      const ids = rows!.requestIds(terms);
      return { sql: rows!.tasksOf(ids.sql), params: ids.params };
    },
    // Without the key index (or for a short term): only the keyed rows are scanned (partial index
    // ix_tasks_key, covering), never the whole table; LIKE compares ASCII letters case-insensitively.
    keyContains: (term) => ({
      sql: `rowid IN (SELECT rowid FROM tasks INDEXED BY ix_tasks_key WHERE task_key IS NOT NULL AND task_key LIKE ? ESCAPE '\\')`,
      params: [containsPattern(term)],
    }),
    // The planner reads an OR of indexed conditions as a union of index reads.
    anyOf: (conditions) => `(${conditions.join(' OR ')})`,
    concurrentReads: false,
    jsonIntegerArray: (expression) => `json_group_array(${expression})`,
    jsonIntegers: 'SELECT value FROM json_each(?)',
    amongIntegers: (column) => `${column} IN (SELECT value FROM json_each(?))`,
    // CROSS JOIN keeps the list outermost; the correlated IN is read once per value.
    eachRows: (table, key, rows) => `json_each(?) AS g CROSS JOIN ${table} AS x ON x.${key} IN (${rows('g.value')})`,
    unhinted: (column) => `+${column}`,
    schemaVersionSql: `SELECT user_version AS v FROM pragma_user_version`,
    latestSchemaVersion: migrations[migrations.length - 1]!.version,
    searchRows: rows,
  };
}

const STATEMENT_CACHE_SIZE = 500;

/** The monitoring reads over a SQLite handle: each SQL text prepared once, answered synchronously inside. */
export function sqliteReadDb(db: Database): ReadDb {
  const statements = new Map<string, Statement>();
  const features = detectSchemaFeatures(db);
  return {
    dialect: sqliteDialect(features),
    features,
    query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
      let st = statements.get(sql);
      if (st === undefined) {
        st = db.prepare(sql);
        // Task-list texts vary with their IN-lists' lengths: the cache is bounded.
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        statements.set(sql, st);
      }
      try {
        return Promise.resolve(st.all(...params) as R[]);
      } catch (e) {
        return Promise.reject(e as Error);
      }
    },
  };
}
