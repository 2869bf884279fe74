import type { TaskListFilter } from '../../MonitoringStore.js';
import { StoreCapabilityError } from '../StoreCapabilityError.js';
import type { StatDimensions } from '../taskListTerms.js';
import type { ReadDb } from './ReadDb.js';
import type { TypeResolver } from './resolveTypeNames.js';

export interface TaskListWhere {
  /** No row can match (e.g. a type substring that matches no type). */
  empty: boolean;
  /** The WHERE clause (or ''); `unhinted` hides the IN-list columns from the planner's choice of index. */
  sql(unhinted: boolean): string;
  params: unknown[];
  /** Set when every condition is a task-counter dimension: the count is read from the counters. */
  statDimensions?: StatDimensions;
  /** Whether an IN-list on status or type is present (the planner may hide it). */
  hasInList: boolean;
  /**
   * Whether a condition names a small set of rows found by its own index (argument search, or a
   * search term that resolves to task keys only): the list then reads that set once.
   */
  selective: boolean;
  /**
   * Set when the search rows alone answer the list: a full-text match (arguments or task keys)
   * and otherwise only conditions on the columns a search row copies (queue, type, recurring,
   * occurrence, creation time, status). `sql` is the WHERE clause over `task_search_rows`.
   */
  searchRows?: { sql: string; params: unknown[] };
  /** Set when the argument search is the only condition: its terms. */
  requestMatchOnly?: readonly string[];
  /** Set when the only condition is a search term that can only be a task key (no type, handler or argument matches it): the term. */
  keyMatchOnly?: string;
}

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** The WHERE clause of a task list (GET /tasks, a queue's tasks, the targets of a bulk action). */
export async function buildTaskListWhere(db: ReadDb, filter: TaskListFilter, resolver: TypeResolver): Promise<TaskListWhere> {
  const { dialect, features } = db;
  const rows = dialect.searchRows;
  const assertRequestSearch = () => {
    if (!features.requestSearch) {
      throw new StoreCapabilityError('This store has no argument index yet (schema older than version 6): open it once with write access to migrate it.');
    }
  };
  const parts: ((unhinted: boolean) => string)[] = [];
  const params: unknown[] = [];
  const dims: StatDimensions = {};
  let countable = true;
  let hasInList = false;
  let selective = false;
  // The same conditions over the search rows, while every condition has a column there.
  const rowParts: string[] = [];
  const rowParams: unknown[] = [];
  let rowsOnly = rows?.groupColumns === true;
  let rowsMatch = false;
  let keyTerm: string | undefined;
  const inList = (column: string, values: readonly unknown[]) => {
    parts.push((u) => `${u ? dialect.unhinted(column) : column} IN (${placeholders(values.length)})`);
    params.push(...values);
    hasInList = true;
  };
  const onBoth = (sql: string, ...values: unknown[]) => {
    parts.push(() => sql);
    params.push(...values);
    rowParts.push(sql);
    rowParams.push(...values);
  };
  const onTasksOnly = (sql: string, ...values: unknown[]) => {
    parts.push(() => sql);
    params.push(...values);
    countable = false;
    rowsOnly = false;
  };

  if (filter.statuses && filter.statuses.length > 0) {
    const statuses = [...new Set(filter.statuses)];
    inList('status', statuses);
    dims.statuses = statuses;
    if (rows?.status) {
      rowParts.push(`status IN (${placeholders(statuses.length)})`);
      rowParams.push(...statuses);
    } else rowsOnly = false;
  }
  if (filter.queueName !== undefined) {
    onBoth(`queue = ?`, filter.queueName);
    dims.queue = filter.queueName;
  }
  if (filter.taskType !== undefined && filter.taskType !== '') {
    const types = await resolver.types(filter.taskType);
    if (types.length === 0) return { empty: true, sql: () => '', params: [], hasInList: false, selective: false };
    inList('type', types);
    dims.types = types;
    rowParts.push(`type IN (${placeholders(types.length)})`);
    rowParams.push(...types);
  }
  if (filter.isRecurring !== undefined) {
    dims.isRecurring = filter.isRecurring ? 1 : 0;
    onBoth(`is_recurring = ?`, dims.isRecurring);
  }
  if (filter.onlyOccurrences !== undefined) {
    parts.push(() => (filter.onlyOccurrences ? `parent_task_id IS NOT NULL` : `parent_task_id IS NULL`));
    dims.isOccurrence = filter.onlyOccurrences ? 1 : 0;
    rowParts.push(`is_occurrence = ?`);
    rowParams.push(dims.isOccurrence);
  }
  if (filter.createdAfterMs !== undefined) {
    onBoth(`created_at >= ?`, filter.createdAfterMs);
    countable = false;
  }
  if (filter.createdBeforeMs !== undefined) {
    onBoth(`created_at <= ?`, filter.createdBeforeMs);
    countable = false;
  }
  if (filter.parentTaskId !== undefined) onTasksOnly(`parent_task_id = ?`, filter.parentTaskId);
  if (filter.failureFingerprint !== undefined) {
    // The fingerprint of the row's last error, computed as the failure groups compute it.
    onTasksOnly(`last_outcome = 'Failed' AND svc_failure_fingerprint(exception) = ?`, filter.failureFingerprint);
  }
  if (filter.onlyCatchUp !== undefined) {
    onTasksOnly(filter.onlyCatchUp ? `misfire_kind = 'CatchUp'` : `(misfire_kind IS NULL OR misfire_kind <> 'CatchUp')`);
  }
  if (filter.searchTerm !== undefined && filter.searchTerm !== '') {
    // The term as a type, a handler, a key or (with its request terms) the arguments: any of them.
    const term = filter.searchTerm;
    const [types, pairs] = await Promise.all([resolver.types(term), resolver.handlerPairs(term)]);
    const alternatives: string[] = [];
    const local: unknown[] = [];
    const rowAlternatives: string[] = [];
    const rowLocal: unknown[] = [];
    if (types.length > 0) {
      alternatives.push(`type IN (${placeholders(types.length)})`);
      local.push(...types);
    }
    if (pairs === undefined) {
      alternatives.push(dialect.contains('handler'));
      local.push(term);
    } else if (pairs.length > 0) {
      const ptypes = [...new Set(pairs.map((p) => p.type))];
      const handlers = [...new Set(pairs.map((p) => p.handler))];
      alternatives.push(`(type IN (${placeholders(ptypes.length)}) AND handler IN (${placeholders(handlers.length)}))`);
      local.push(...ptypes, ...handlers);
    }
    const keysOnly = types.length === 0 && pairs !== undefined && pairs.length === 0;
    // Task keys: the search rows' substring index where it serves the term, else the dialect's own read.
    const keyIds = rows?.keyIds(term);
    if (keyIds && rows) {
      alternatives.push(rows.tasksOf(keyIds.sql));
      local.push(...keyIds.params);
      rowAlternatives.push(`id IN (${keyIds.sql})`);
      rowLocal.push(...keyIds.params);
    } else {
      const key = dialect.keyContains(term);
      alternatives.push(key.sql);
      local.push(...key.params);
      rowsOnly = false;
    }
    if (filter.searchTermRequestTerms && filter.searchTermRequestTerms.length > 0) {
      assertRequestSearch();
      const request = dialect.requestMatch(filter.searchTermRequestTerms);
      alternatives.push(request.sql);
      local.push(...request.params);
      if (rows) {
        const ids = rows.requestIds(filter.searchTermRequestTerms);
        rowAlternatives.push(`id IN (${ids.sql})`);
        rowLocal.push(...ids.params);
      }
    }
    parts.push(() => dialect.anyOf(alternatives));
    params.push(...local);
    countable = false;
    if (keysOnly && !(filter.searchTermRequestTerms && filter.searchTermRequestTerms.length > 0)) keyTerm = term;
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
    assertRequestSearch();
    const request = dialect.requestMatch(filter.requestSearch);
    parts.push(() => request.sql);
    params.push(...request.params);
    countable = false;
    selective = true;
    if (rows) {
      const ids = rows.requestIds(filter.requestSearch);
      rowParts.push(`id IN (${ids.sql})`);
      rowParams.push(...ids.params);
      rowsMatch = true;
    }
  }

  const onlyRequest = filter.requestSearch && filter.requestSearch.length > 0 && parts.length === 1;
  return {
    empty: false,
    params,
    requestMatchOnly: onlyRequest ? filter.requestSearch : undefined,
    keyMatchOnly: parts.length === 1 ? keyTerm : undefined,
    hasInList,
    selective,
    statDimensions: countable ? dims : undefined,
    searchRows: rowsOnly && rowsMatch ? { sql: `WHERE ${rowParts.join(' AND ')}`, params: rowParams } : undefined,
    sql: (unhinted) => (parts.length === 0 ? '' : `WHERE ${parts.map((p) => p(unhinted)).join(' AND ')}`),
  };
}

/** The count of a list whose conditions are all task-counter dimensions: a sum over the counters. */
export function statCountSql(db: ReadDb, dims: StatDimensions): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    parts.push(sql);
    params.push(...values);
  };
  if (dims.statuses) add(`status IN (${placeholders(dims.statuses.length)})`, ...dims.statuses);
  if (dims.queue !== undefined) add(`queue = ?`, dims.queue);
  if (dims.types) add(`type IN (${placeholders(dims.types.length)})`, ...dims.types);
  if (dims.isRecurring !== undefined) add(`is_recurring = ?`, dims.isRecurring);
  if (dims.isOccurrence !== undefined) add(`is_occurrence = ?`, dims.isOccurrence);
  const where = parts.length === 0 ? '' : `WHERE ${parts.join(' AND ')}`;
  return { sql: `SELECT COALESCE(SUM(n), 0) AS n FROM ${db.dialect.model('stat_tasks')} ${where}`, params };
}
