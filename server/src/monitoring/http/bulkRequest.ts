import type { Request } from 'express';
import { BULK_ACTIONS, BULK_FILTER_PARAMS, type BulkAction } from '../../contracts/index.js';
import type { TaskListFilter } from '../../storage/MonitoringStore.js';
import { BadRequestError, NotFoundError } from './problem.js';
import { parseTaskListQuery } from './taskListQuery.js';

/** Filter keys a bulk body accepts: those of GET /tasks without paging and sorting. */
const FILTER_KEYS: readonly string[] = BULK_FILTER_PARAMS.map((p) => p.name);

export interface ParsedBulkRequest {
  action: BulkAction;
  filter: TaskListFilter;
  expectedCount: number;
}

/** The `{action}` path segment: an unknown action is a 404. */
export function parseBulkAction(req: Request): BulkAction {
  const raw = String((req.params as Record<string, string | undefined>).action ?? '');
  const action = BULK_ACTIONS.find((a) => a === raw.toLowerCase());
  if (!action) throw new NotFoundError(`Unknown bulk action '${raw}'. Actions: ${BULK_ACTIONS.join(', ')}.`);
  return action;
}

/**
 * Body `{ filter, expectedCount }`: the filter has the names and meanings of the GET /tasks
 * query parameters (values as JSON strings, booleans, numbers; statuses as an array), checked by
 * the same rules; each error names `filter.<name>` or `expectedCount`.
 */
export function parseBulkBody(req: Request): { filter: TaskListFilter; expectedCount: number } {
  const body: unknown = req.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw BadRequestError.of('body', 'The body must be a JSON object { filter, expectedCount }.');
  }
  const errors: Record<string, string[]> = {};
  const b = body as Record<string, unknown>;
  for (const key of Object.keys(b)) {
    if (key !== 'filter' && key !== 'expectedCount') errors[key] = [`Unknown field '${key}'; the body has filter and expectedCount.`];
  }
  const expected = b.expectedCount;
  if (typeof expected !== 'number' || !Number.isInteger(expected) || expected < 0) {
    errors.expectedCount = ['Required: the number of rows the user confirmed (a non-negative integer).'];
  }
  const rawFilter = b.filter ?? {};
  const search = new URLSearchParams();
  if (rawFilter === null || typeof rawFilter !== 'object' || Array.isArray(rawFilter)) {
    errors.filter = ['The filter must be a JSON object with the GET /tasks filter parameters.'];
  } else {
    for (const [key, value] of Object.entries(rawFilter as Record<string, unknown>)) {
      if (!FILTER_KEYS.includes(key)) {
        errors[`filter.${key}`] = [`Unknown filter '${key}'. Filters: ${FILTER_KEYS.join(', ')}.`];
        continue;
      }
      if (value === undefined || value === null) continue;
      const values = Array.isArray(value) ? value : [value];
      for (const v of values) {
        if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') search.append(key, String(v));
        else errors[`filter.${key}`] = ['Must be a string, number or boolean (statuses: an array of strings).'];
      }
    }
  }
  let filter: TaskListFilter = {};
  try {
    const { sortBy: _s, sortDescending: _d, page: _p, pageSize: _z, ...rest } = parseTaskListQuery({ originalUrl: `/?${search}` } as Request);
    filter = rest;
  } catch (err) {
    if (!(err instanceof BadRequestError)) throw err;
    for (const [k, v] of Object.entries(err.errors)) errors[`filter.${k}`] = v;
  }
  if (Object.keys(errors).length > 0) throw new BadRequestError(errors);
  return { filter, expectedCount: expected as number };
}

/** The 5 % rule: the count the user confirmed may differ from the current one by at most 5 % of it. */
export function countDiffersTooMuch(expectedCount: number, count: number): boolean {
  return Math.abs(count - expectedCount) > expectedCount * 0.05;
}
