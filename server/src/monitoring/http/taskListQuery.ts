import type { Request } from 'express';
import { TASK_STATUSES, type TaskSortField, type TaskStatus } from '../../contracts/index.js';
import type { TaskListQuery } from '../../storage/MonitoringStore.js';
import { BadRequestError } from './problem.js';
import { parseEnum, QueryParams } from './queryParams.js';
import { parseRequestSearch } from './requestSearch.js';

/** Where searchTerm looks: names (type, handler, key; the default) or names and the request JSON. */
export const SEARCH_SCOPES = ['Names', 'NamesAndArguments'] as const;

export const SORT_FIELDS: readonly TaskSortField[] = [
  'CreatedAtUtc',
  'LastExecutionUtc',
  'ScheduledExecutionUtc',
  'StartedAtUtc',
  'Status',
  'Type',
  'QueueName',
  'ExecutionTimeMs',
];
export const MAX_PAGE_SIZE = 500;
const MAX_PAGE = 1_000_000_000;

/** §4.3 query with D10 clamping; every bad value is a 400 naming its parameter. */
export function parseTaskListQuery(req: Request): TaskListQuery {
  const q = new QueryParams(req);
  const errors: Record<string, string[]> = {};
  const attempt = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (err) {
      if (err instanceof BadRequestError) Object.assign(errors, err.errors);
      else throw err;
      return undefined;
    }
  };
  const statuses = attempt(() => q.list('statuses').map((s) => parseEnum<TaskStatus>('statuses', s, TASK_STATUSES)));
  const query: TaskListQuery = {
    statuses: statuses && statuses.length > 0 ? statuses : undefined,
    queueName: q.string('queueName'),
    taskType: q.string('taskType'),
    isRecurring: attempt(() => q.bool('isRecurring')),
    createdAfterMs: attempt(() => q.date('createdAfter')),
    createdBeforeMs: attempt(() => q.date('createdBefore')),
    searchTerm: q.string('searchTerm'),
    parentTaskId: attempt(() => q.guid('parentTaskId')),
    onlyOccurrences: attempt(() => q.bool('onlyOccurrences')),
    onlyCatchUp: attempt(() => q.bool('onlyCatchUp')),
    sortBy: attempt(() => q.enumValue('sortBy', SORT_FIELDS)) ?? 'CreatedAtUtc',
    sortDescending: attempt(() => q.bool('sortDescending')) ?? true,
    page: attempt(() => q.int('page', 1, 1, MAX_PAGE)) ?? 1,
    pageSize: attempt(() => q.int('pageSize', 20, 1, MAX_PAGE_SIZE)) ?? 20,
  };
  const requestSearch = q.string('requestSearch');
  if (requestSearch !== undefined) query.requestSearch = attempt(() => parseRequestSearch('requestSearch', requestSearch));
  const scope = attempt(() => q.enumValue('searchScope', SEARCH_SCOPES)) ?? 'Names';
  if (scope === 'NamesAndArguments' && query.searchTerm !== undefined) {
    const term = query.searchTerm;
    query.searchTermRequestTerms = attempt(() => parseRequestSearch('searchTerm', term));
  }
  if (Object.keys(errors).length > 0) throw new BadRequestError(errors);
  return query;
}
