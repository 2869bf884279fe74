import type { Request } from 'express';
import { SEARCH_SCOPES, SORT_BY_PARAM, TASK_LIST_PARAMS, TASK_STATUSES, type QueryParamSpec, type TaskStatus } from '../../contracts/index.js';
import type { TaskListQuery } from '../../storage/MonitoringStore.js';
import { BadRequestError } from './problem.js';
import { parseEnum, QueryParams } from './queryParams.js';
import { parseRequestSearch } from './requestSearch.js';

const PARAMS = new Map(TASK_LIST_PARAMS.map((p) => [p.name, p]));
const spec = (name: string): QueryParamSpec => PARAMS.get(name) as QueryParamSpec;

/** The task-list query with the catalogue's defaults and bounds (integers clamp); every bad value is a 400 naming its parameter. */
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
    failureFingerprint: q.string('failureFingerprint'),
    parentTaskId: attempt(() => q.guid('parentTaskId')),
    onlyOccurrences: attempt(() => q.bool('onlyOccurrences')),
    onlyCatchUp: attempt(() => q.bool('onlyCatchUp')),
    sortBy: attempt(() => q.enumOf(SORT_BY_PARAM)) ?? 'CreatedAtUtc',
    sortDescending: attempt(() => q.bool('sortDescending')) ?? spec('sortDescending').default === true,
    page: attempt(() => q.intOf(spec('page'))) ?? 1,
    pageSize: attempt(() => q.intOf(spec('pageSize'))) ?? Number(spec('pageSize').default),
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
