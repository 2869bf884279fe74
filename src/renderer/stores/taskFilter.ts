import type { TaskQuery, TaskSortField } from '../../../server/src/contracts/api.js';
import { API_LIMITS, TASK_SORT_FIELDS } from '../../../server/src/contracts/apiRoutes.js';
import { TASK_STATUSES, type TaskStatus } from '../../../server/src/contracts/task.js';

/** The status names and sort fields of the route catalogue. */
export const STATUSES: readonly TaskStatus[] = TASK_STATUSES;
export const SORT_FIELDS: readonly TaskSortField[] = TASK_SORT_FIELDS;
export const PAGE_SIZES = [10, 20, 50, 100, 200] as const;
export const DEFAULT_PAGE_SIZE: number = API_LIMITS.defaultPageSize;
export const DEFAULT_SORT: TaskSortField = 'CreatedAtUtc';

/**
 * Where the search box looks: names and arguments together (the default: type, handler, key OR
 * words inside the request JSON), names only (the spec's searchTerm), or arguments only.
 */
export type SearchIn = 'all' | 'names' | 'arguments';
export const SEARCH_IN: readonly SearchIn[] = ['all', 'names', 'arguments'];

/** The whole filter state of the Tasks page; exactly what the URL holds. */
export interface TaskFilter {
  statuses: TaskStatus[];
  queueName?: string;
  taskType?: string;
  isRecurring?: boolean;
  createdAfter?: string;
  createdBefore?: string;
  searchTerm?: string;
  /** Where searchTerm looks; URL `searchIn` (absent = all). */
  searchIn: SearchIn;
  /** Only tasks whose last run failed with this error fingerprint (a failure group's). */
  failureFingerprint?: string;
  parentTaskId?: string;
  onlyOccurrences?: boolean;
  onlyCatchUp?: boolean;
  sortBy: TaskSortField;
  sortDescending: boolean;
  page: number;
  pageSize: number;
}

export type UrlQuery = Record<string, string | string[]>;
type LooseQuery = Record<string, string | null | undefined | (string | null)[]>;

export function defaultFilter(): TaskFilter {
  return { statuses: [], searchIn: 'all', sortBy: DEFAULT_SORT, sortDescending: true, page: 1, pageSize: DEFAULT_PAGE_SIZE };
}

function first(value: LooseQuery[string]): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v === null || v === undefined || v === '' ? undefined : v;
}
function all(value: LooseQuery[string]): string[] {
  if (value === null || value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).flatMap((v) => (v ? v.split(',') : [])).filter((v) => v !== '');
}
function bool(value: LooseQuery[string]): boolean | undefined {
  const v = first(value)?.toLowerCase();
  return v === 'true' ? true : v === 'false' ? false : undefined;
}
function int(value: LooseQuery[string], fallback: number, min: number, max: number): number {
  const n = Number(first(value));
  return Number.isInteger(n) ? Math.min(max, Math.max(min, n)) : fallback;
}
function date(value: LooseQuery[string]): string | undefined {
  const v = first(value);
  return v !== undefined && !Number.isNaN(Date.parse(v)) ? v : undefined;
}

/** URL query → filter. Unknown or malformed values fall back to the defaults (never an error page). */
export function queryToFilter(query: LooseQuery): TaskFilter {
  const f = defaultFilter();
  const statuses = all(query.statuses).filter((s): s is TaskStatus => (STATUSES as readonly string[]).includes(s));
  f.statuses = [...new Set(statuses)];
  f.queueName = first(query.queueName);
  f.taskType = first(query.taskType);
  f.isRecurring = bool(query.isRecurring);
  f.createdAfter = date(query.createdAfter);
  f.createdBefore = date(query.createdBefore);
  f.searchTerm = first(query.searchTerm);
  const searchIn = first(query.searchIn)?.toLowerCase();
  f.searchIn = SEARCH_IN.find((s) => s === searchIn) ?? 'all';
  f.failureFingerprint = first(query.failureFingerprint);
  f.parentTaskId = first(query.parentTaskId);
  f.onlyOccurrences = bool(query.onlyOccurrences);
  f.onlyCatchUp = bool(query.onlyCatchUp);
  const sort = first(query.sortBy);
  const match = SORT_FIELDS.find((s) => s.toLowerCase() === sort?.toLowerCase());
  f.sortBy = match ?? DEFAULT_SORT;
  f.sortDescending = bool(query.sortDescending) ?? true;
  f.page = int(query.page, 1, 1, 1_000_000);
  f.pageSize = int(query.pageSize, DEFAULT_PAGE_SIZE, 1, 500);
  return f;
}

/** Filter → URL query; defaults are left out so a plain /tasks stays plain. */
export function filterToQuery(f: TaskFilter): UrlQuery {
  const q: UrlQuery = {};
  if (f.statuses.length > 0) q.statuses = [...f.statuses];
  if (f.queueName) q.queueName = f.queueName;
  if (f.taskType) q.taskType = f.taskType;
  if (f.isRecurring !== undefined) q.isRecurring = String(f.isRecurring);
  if (f.createdAfter) q.createdAfter = f.createdAfter;
  if (f.createdBefore) q.createdBefore = f.createdBefore;
  if (f.searchTerm) q.searchTerm = f.searchTerm;
  if (f.searchIn !== 'all') q.searchIn = f.searchIn;
  if (f.failureFingerprint) q.failureFingerprint = f.failureFingerprint;
  if (f.parentTaskId) q.parentTaskId = f.parentTaskId;
  if (f.onlyOccurrences !== undefined) q.onlyOccurrences = String(f.onlyOccurrences);
  if (f.onlyCatchUp !== undefined) q.onlyCatchUp = String(f.onlyCatchUp);
  if (f.sortBy !== DEFAULT_SORT) q.sortBy = f.sortBy;
  if (!f.sortDescending) q.sortDescending = 'false';
  if (f.page !== 1) q.page = String(f.page);
  if (f.pageSize !== DEFAULT_PAGE_SIZE) q.pageSize = String(f.pageSize);
  return q;
}

/** Filter → the query parameters of GET /tasks. */
export function filterToApiQuery(f: TaskFilter): TaskQuery {
  return {
    statuses: f.statuses.length > 0 ? [...f.statuses] : undefined,
    queueName: f.queueName,
    taskType: f.taskType,
    isRecurring: f.isRecurring,
    createdAfter: f.createdAfter,
    createdBefore: f.createdBefore,
    ...searchQuery(f),
    failureFingerprint: f.failureFingerprint,
    parentTaskId: f.parentTaskId,
    onlyOccurrences: f.onlyOccurrences,
    onlyCatchUp: f.onlyCatchUp,
    sortBy: f.sortBy,
    sortDescending: f.sortDescending,
    page: f.page,
    pageSize: f.pageSize,
  };
}

/** The search box → API parameters: names and arguments (searchScope), names only, or arguments only (requestSearch). */
export function searchQuery(f: Pick<TaskFilter, 'searchTerm' | 'searchIn'>): Pick<TaskQuery, 'searchTerm' | 'searchScope' | 'requestSearch'> {
  if (!f.searchTerm) return {};
  if (f.searchIn === 'names') return { searchTerm: f.searchTerm };
  if (f.searchIn === 'arguments') return { requestSearch: f.searchTerm };
  return { searchTerm: f.searchTerm, searchScope: 'NamesAndArguments' };
}

/** A change of any filter (not of page) starts again at page 1. */
export function withChange(f: TaskFilter, change: Partial<TaskFilter>): TaskFilter {
  const next = { ...f, ...change };
  const onlyPaging = Object.keys(change).every((k) => k === 'page');
  if (!onlyPaging) next.page = 1;
  return next;
}

export function activeFilterCount(f: TaskFilter): number {
  return [
    f.statuses.length > 0,
    f.queueName,
    f.taskType,
    f.isRecurring !== undefined,
    f.createdAfter,
    f.createdBefore,
    f.searchTerm,
    f.failureFingerprint,
    f.parentTaskId,
    f.onlyOccurrences !== undefined,
    f.onlyCatchUp !== undefined,
  ].filter(Boolean).length;
}
