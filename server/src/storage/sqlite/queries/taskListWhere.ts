import type { TaskListFilter } from '../../MonitoringStore.js';
import { KEY_INDEX_MIN_CHARS, type StatDimensions } from '../../common/taskListTerms.js';
import { containsPattern } from '../../common/containsPattern.js';
import { KEY_MATCH_SQL, keyMatchExpression, REQUEST_MATCH_SQL, requestMatchExpression, SEARCH_ROWS_KEY_MATCH_SQL, SEARCH_ROWS_REQUEST_MATCH_SQL, StoreCapabilityError } from './requestMatch.js';
import type { TypeResolver } from './resolveTypeNames.js';

type SqlValue = string | number;

export interface TaskListWhere {
  /** No row can match (e.g. a type substring that matches no type). */
  empty: boolean;
  /** Build the WHERE clause; `demote` prefixes IN-list columns with unary + so that SQLite walks the sort index instead. */
  sql(demote: boolean): string;
  params: SqlValue[];
  /** Set when every condition is a stat_tasks dimension: the count is read from the counters. */
  statDimensions?: StatDimensions;
  /** Whether an IN-list on status or type is present (the planner may demote it). */
  hasInList: boolean;
  /**
   * Whether a condition names a small set of rows found by its own index (argument search, or a
   * search term that resolves to task keys only): the list then reads that set once.
   */
  selective: boolean;
  /**
   * Set when the search rows alone answer the list: a full-text match (arguments or task keys)
   * and otherwise only conditions on the columns a search row copies (queue, type, recurring,
   * occurrence, creation time). `sql` is the WHERE clause over `task_search_rows`.
   */
  searchRows?: { sql: string; params: SqlValue[] };
  /** Set when the argument search is the only condition: its FTS5 expression. */
  requestMatchOnly?: string;
}

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

export interface TaskListWhereFeatures {
  /** Tasks carry their reservation columns (migration 12); absent: they do. */
  reservations?: boolean;
  /** The store has the argument index (migration 6). */
  requestSearch: boolean;
  /** The search rows carry the group columns and task keys have their substring index (migration 8). */
  searchRows: boolean;
  /** The store records whether search-row key order is creation-time order (migration 9). */
  searchRowOrder?: boolean;
  /** The search rows carry their task's status (migration 10). */
  searchRowStatus?: boolean;
}

const assertRequestSearch = (features: TaskListWhereFeatures | undefined) => {
  if (features && !features.requestSearch) {
    throw new StoreCapabilityError('This store has no argument index yet (schema older than version 6): open it once with write access to migrate it.');
  }
};

export function buildTaskListWhere(filter: TaskListFilter, resolver: TypeResolver, features?: TaskListWhereFeatures): TaskListWhere {
  const parts: ((demote: boolean) => string)[] = [];
  const params: SqlValue[] = [];
  const dims: StatDimensions = {};
  let countable = true;
  let empty = false;
  let hasInList = false;
  let selective = false;
  const hasSearchRows = features === undefined || features.searchRows;
  // The same conditions over task_search_rows, while every condition has a column there.
  const rowParts: string[] = [];
  const rowParams: SqlValue[] = [];
  let rowsOnly = hasSearchRows;
  let rowsMatch = false;

  if (filter.statuses && filter.statuses.length > 0) {
    const statuses = [...new Set(filter.statuses)];
    parts.push((d) => `${d ? '+' : ''}status IN (${placeholders(statuses.length)})`);
    params.push(...statuses);
    dims.statuses = statuses;
    hasInList = true;
    if (features === undefined || features.searchRowStatus) {
      rowParts.push(`status IN (${placeholders(statuses.length)})`);
      rowParams.push(...statuses);
    } else rowsOnly = false;
  }
  if (filter.queueName !== undefined) {
    parts.push(() => `queue = ?`);
    params.push(filter.queueName);
    dims.queue = filter.queueName;
    rowParts.push(`queue = ?`);
    rowParams.push(filter.queueName);
  }
  if (filter.taskType !== undefined && filter.taskType !== '') {
    const types = resolver.types(filter.taskType);
    if (types.length === 0) empty = true;
    else {
      parts.push((d) => `${d ? '+' : ''}type IN (${placeholders(types.length)})`);
      params.push(...types);
      dims.types = types;
      hasInList = true;
      rowParts.push(`type IN (${placeholders(types.length)})`);
      rowParams.push(...types);
    }
  }
  if (filter.isRecurring !== undefined) {
    parts.push(() => `is_recurring = ?`);
    params.push(filter.isRecurring ? 1 : 0);
    dims.isRecurring = filter.isRecurring ? 1 : 0;
    rowParts.push(`is_recurring = ?`);
    rowParams.push(dims.isRecurring);
  }
  if (filter.onlyOccurrences !== undefined) {
    parts.push(() => (filter.onlyOccurrences ? `parent_task_id IS NOT NULL` : `parent_task_id IS NULL`));
    dims.isOccurrence = filter.onlyOccurrences ? 1 : 0;
    rowParts.push(`is_occurrence = ?`);
    rowParams.push(dims.isOccurrence);
  }
  if (filter.createdAfterMs !== undefined) {
    parts.push(() => `created_at >= ?`);
    params.push(filter.createdAfterMs);
    countable = false;
    rowParts.push(`created_at >= ?`);
    rowParams.push(filter.createdAfterMs);
  }
  if (filter.createdBeforeMs !== undefined) {
    parts.push(() => `created_at <= ?`);
    params.push(filter.createdBeforeMs);
    countable = false;
    rowParts.push(`created_at <= ?`);
    rowParams.push(filter.createdBeforeMs);
  }
  if (filter.parentTaskId !== undefined) {
    parts.push(() => `parent_task_id = ?`);
    params.push(filter.parentTaskId);
    countable = false;
    rowsOnly = false;
  }
  if (filter.failureFingerprint !== undefined) {
    // The fingerprint of the row's last error, computed as the failure groups compute it.
    parts.push(() => `last_outcome = 'Failed' AND svc_failure_fingerprint(exception) = ?`);
    params.push(filter.failureFingerprint);
    countable = false;
    rowsOnly = false;
  }
  if (filter.onlyCatchUp !== undefined) {
    parts.push(() =>
      filter.onlyCatchUp ? `misfire_kind = 'CatchUp'` : `(misfire_kind IS NULL OR misfire_kind <> 'CatchUp')`,
    );
    countable = false;
    rowsOnly = false;
  }
  if (filter.searchTerm !== undefined && filter.searchTerm !== '') {
    const term = filter.searchTerm;
    const types = resolver.types(term);
    const pairs = resolver.handlerPairs(term);
    const alternatives: string[] = [];
    const local: SqlValue[] = [];
    if (types.length > 0) {
      alternatives.push(`type IN (${placeholders(types.length)})`);
      local.push(...types);
    }
    if (pairs === undefined) {
      alternatives.push(`instr(lower(handler), lower(?)) > 0`);
      local.push(term);
    } else if (pairs.length > 0) {
      const ptypes = [...new Set(pairs.map((p) => p.type))];
      const handlers = [...new Set(pairs.map((p) => p.handler))];
      alternatives.push(
        `(type IN (${placeholders(ptypes.length)}) AND handler IN (${placeholders(handlers.length)}))`,
      );
      local.push(...ptypes, ...handlers);
    }
    const keysOnly = types.length === 0 && pairs !== undefined && pairs.length === 0;
    const rowAlternatives: string[] = [];
    const rowLocal: SqlValue[] = [];
    if (hasSearchRows && [...term].length >= KEY_INDEX_MIN_CHARS) {
      // Task keys: the substring index finds the keys that contain the term (case-insensitively).
      const expression = keyMatchExpression(term);
      alternatives.push(KEY_MATCH_SQL);
      local.push(expression);
      rowAlternatives.push(SEARCH_ROWS_KEY_MATCH_SQL);
      rowLocal.push(expression);
    } else {
      // A term too short for the key index (or a store without it): scan only the keyed rows
      // (partial index ix_tasks_key, covering), never the whole table; LIKE compares ASCII letters
      // case-insensitively in place (no lower-cased copies).
      alternatives.push(
        `rowid IN (SELECT rowid FROM tasks INDEXED BY ix_tasks_key WHERE task_key IS NOT NULL AND task_key LIKE ? ESCAPE '\\')`,
      );
      local.push(containsPattern(term));
      rowsOnly = false;
    }
    if (filter.searchTermRequestTerms && filter.searchTermRequestTerms.length > 0) {
      assertRequestSearch(features);
      const expression = requestMatchExpression(filter.searchTermRequestTerms);
      alternatives.push(REQUEST_MATCH_SQL);
      local.push(expression);
      rowAlternatives.push(SEARCH_ROWS_REQUEST_MATCH_SQL);
      rowLocal.push(expression);
    }
    parts.push(() => `(${alternatives.join(' OR ')})`);
    params.push(...local);
    countable = false;
    if (keysOnly) {
      selective = true;
      rowParts.push(`(${rowAlternatives.join(' OR ')})`);
      rowParams.push(...rowLocal);
      rowsMatch = true;
    } else {
      rowsOnly = false;
    }
  }

  if (filter.requestSearch && filter.requestSearch.length > 0) {
    assertRequestSearch(features);
    const expression = requestMatchExpression(filter.requestSearch);
    parts.push(() => REQUEST_MATCH_SQL);
    params.push(expression);
    countable = false;
    selective = true;
    rowParts.push(SEARCH_ROWS_REQUEST_MATCH_SQL);
    rowParams.push(expression);
    rowsMatch = true;
  }

  const onlyRequest = filter.requestSearch && filter.requestSearch.length > 0 && parts.length === 1 && !empty;
  return {
    empty,
    params,
    requestMatchOnly: onlyRequest ? String(params[0]) : undefined,
    hasInList,
    selective,
    statDimensions: countable ? dims : undefined,
    searchRows: rowsOnly && rowsMatch ? { sql: `WHERE ${rowParts.join(' AND ')}`, params: rowParams } : undefined,
    sql: (demote) => (parts.length === 0 ? '' : `WHERE ${parts.map((p) => p(demote)).join(' AND ')}`),
  };
}

/** Sums stat_tasks over the given dimensions. */
export function statCountSql(dims: StatDimensions): { sql: string; params: SqlValue[] } {
  const parts: string[] = [];
  const params: SqlValue[] = [];
  if (dims.statuses) {
    parts.push(`status IN (${placeholders(dims.statuses.length)})`);
    params.push(...dims.statuses);
  }
  if (dims.queue !== undefined) {
    parts.push(`queue = ?`);
    params.push(dims.queue);
  }
  if (dims.types) {
    parts.push(`type IN (${placeholders(dims.types.length)})`);
    params.push(...dims.types);
  }
  if (dims.isRecurring !== undefined) {
    parts.push(`is_recurring = ?`);
    params.push(dims.isRecurring);
  }
  if (dims.isOccurrence !== undefined) {
    parts.push(`is_occurrence = ?`);
    params.push(dims.isOccurrence);
  }
  const where = parts.length === 0 ? '' : `WHERE ${parts.join(' AND ')}`;
  return { sql: `SELECT COALESCE(SUM(n), 0) AS n FROM stat_tasks ${where}`, params };
}
