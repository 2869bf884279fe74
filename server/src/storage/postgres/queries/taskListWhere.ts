import type { TaskListFilter } from '../../MonitoringStore.js';
import { containsPattern } from '../../common/containsPattern.js';
import { KEY_INDEX_MIN_CHARS, type StatDimensions } from '../../common/taskListTerms.js';
import type { PgTypeResolver } from './resolveTypeNames.js';
import { SqlParams } from './PgQuery.js';

export interface PgTaskListWhere {
  /** No row can match (e.g. a type substring that matches no type). */
  empty: boolean;
  /** `WHERE …` (or '') with its parameters. */
  sql: string;
  params: SqlParams;
  /** Set when every condition is a counter dimension: the count is read from the counters. */
  statDimensions?: StatDimensions;
}

/**
 * Argument search: the `seq` of the tasks whose request has every term (a word or a quoted phrase)
 * as a phrase among its words (task_search, kept by triggers on tasks, and its GIN index).
 */
function requestMatchSeqs(terms: readonly string[], p: SqlParams): string {
  const each = terms.map((t) => `phraseto_tsquery('simple', svc_search_words(${p.add(t)}))`).join(' && ');
  return `SELECT seq FROM task_search WHERE words @@ (${each})`;
}

/** The WHERE clause of a task list (same filters as the SQLite list). */
export async function pgTaskListWhere(filter: TaskListFilter, resolver: PgTypeResolver): Promise<PgTaskListWhere> {
  const p = new SqlParams();
  const parts: string[] = [];
  const dims: StatDimensions = {};
  let countable = true;

  if (filter.statuses && filter.statuses.length > 0) {
    const statuses = [...new Set(filter.statuses)];
    parts.push(`status = ANY(${p.add(statuses)}::text[])`);
    dims.statuses = statuses;
  }
  if (filter.queueName !== undefined) {
    parts.push(`queue = ${p.add(filter.queueName)}`);
    dims.queue = filter.queueName;
  }
  if (filter.taskType !== undefined && filter.taskType !== '') {
    const types = await resolver.types(filter.taskType);
    if (types.length === 0) return { empty: true, sql: '', params: p };
    parts.push(`type = ANY(${p.add(types)}::text[])`);
    dims.types = types;
  }
  if (filter.isRecurring !== undefined) {
    parts.push(`is_recurring = ${p.add(filter.isRecurring ? 1 : 0)}`);
    dims.isRecurring = filter.isRecurring ? 1 : 0;
  }
  if (filter.onlyOccurrences !== undefined) {
    parts.push(filter.onlyOccurrences ? `parent_task_id IS NOT NULL` : `parent_task_id IS NULL`);
    dims.isOccurrence = filter.onlyOccurrences ? 1 : 0;
  }
  if (filter.createdAfterMs !== undefined) {
    parts.push(`created_at >= ${p.add(filter.createdAfterMs)}`);
    countable = false;
  }
  if (filter.createdBeforeMs !== undefined) {
    parts.push(`created_at <= ${p.add(filter.createdBeforeMs)}`);
    countable = false;
  }
  if (filter.parentTaskId !== undefined) {
    parts.push(`parent_task_id = ${p.add(filter.parentTaskId)}`);
    countable = false;
  }
  if (filter.failureFingerprint !== undefined) {
    // The fingerprint of the row's last error, computed as the failure groups compute it.
    parts.push(`last_outcome = 'Failed' AND svc_failure_fingerprint(exception) = ${p.add(filter.failureFingerprint)}`);
    countable = false;
  }
  if (filter.onlyCatchUp !== undefined) {
    parts.push(filter.onlyCatchUp ? `misfire_kind = 'CatchUp'` : `(misfire_kind IS NULL OR misfire_kind <> 'CatchUp')`);
    countable = false;
  }
  if (filter.searchTerm !== undefined && filter.searchTerm !== '') {
    const term = filter.searchTerm;
    const [types, pairs] = await Promise.all([resolver.types(term), resolver.handlerPairs(term)]);
    // Each alternative is its own indexed read (type index, key index, argument index) and the
    // rows are the union of them: an OR of them in one WHERE would read the whole table.
    const alternatives: string[] = [];
    if (types.length > 0) alternatives.push(`SELECT seq FROM tasks WHERE type = ANY(${p.add(types)}::text[])`);
    if (pairs.length > 0) {
      const ptypes = [...new Set(pairs.map((x) => x.type))];
      const handlers = [...new Set(pairs.map((x) => x.handler))];
      alternatives.push(`SELECT seq FROM tasks WHERE type = ANY(${p.add(ptypes)}::text[]) AND handler = ANY(${p.add(handlers)}::text[])`);
    }
    if ([...term].length >= KEY_INDEX_MIN_CHARS) {
      // Task keys: the trigram index of keys finds the rows whose key contains the term (ILIKE
      // compares letters case-insensitively).
      alternatives.push(`SELECT seq FROM tasks WHERE task_key IS NOT NULL AND task_key ILIKE ${p.add(containsPattern(term))}`);
    } else {
      // A term too short for trigrams: the matching keys from the key index alone (an index-only
      // scan, evaluated once as an array), then their rows by key lookups.
      alternatives.push(`SELECT seq FROM tasks WHERE task_key = ANY(ARRAY(SELECT k.task_key FROM tasks k
        WHERE k.task_key IS NOT NULL AND strpos(lower(k.task_key), lower(${p.add(term)})) > 0))`);
    }
    if (filter.searchTermRequestTerms && filter.searchTermRequestTerms.length > 0) {
      alternatives.push(requestMatchSeqs(filter.searchTermRequestTerms, p));
    }
    parts.push(`seq IN (${alternatives.join(' UNION ALL ')})`);
    countable = false;
  }
  if (filter.requestSearch && filter.requestSearch.length > 0) {
    parts.push(`seq IN (${requestMatchSeqs(filter.requestSearch, p)})`);
    countable = false;
  }
  return {
    empty: false,
    sql: parts.length === 0 ? '' : `WHERE ${parts.join(' AND ')}`,
    params: p,
    statDimensions: countable ? dims : undefined,
  };
}

/** Sums the task counters over the given dimensions. */
export function pgStatCountSql(dims: StatDimensions): { sql: string; params: unknown[] } {
  const p = new SqlParams();
  const parts: string[] = [];
  if (dims.statuses) parts.push(`status = ANY(${p.add(dims.statuses)}::text[])`);
  if (dims.queue !== undefined) parts.push(`queue = ${p.add(dims.queue)}`);
  if (dims.types) parts.push(`type = ANY(${p.add(dims.types)}::text[])`);
  if (dims.isRecurring !== undefined) parts.push(`is_recurring = ${p.add(dims.isRecurring)}`);
  if (dims.isOccurrence !== undefined) parts.push(`is_occurrence = ${p.add(dims.isOccurrence)}`);
  const where = parts.length === 0 ? '' : `WHERE ${parts.join(' AND ')}`;
  return { sql: `SELECT COALESCE(SUM(n), 0) AS n FROM stat_tasks_v ${where}`, params: p.values };
}
