import type { ApiResult } from '../../../server/src/contracts/api.js';
import type { TaskSummary } from '../../../server/src/contracts/task.js';
import { ConsoleError } from '../ConsoleError.js';
import { SEARCH_PAGE_SIZE, type SearchAnswer, type SearchHit, type SearchMatch } from '../../shared/search.js';

/** An API call to an environment (ConsoleServices.callApi: the session's token, main's validation). */
export type EnvironmentCall = <Op extends 'tasks.get' | 'tasks.list'>(environmentId: string, operation: Op, params: Record<string, unknown>) => Promise<ApiResult<Op>>;

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** Longest search text (the API's own limit on a text filter). */
export const SEARCH_MAX_LENGTH = 500;

const hitOf = (environmentId: string, task: TaskSummary, matched: SearchMatch): SearchHit => ({
  environmentId,
  taskId: task.id,
  // Lists carry the short type name, a task's detail the full one: hits show the short one.
  type: task.type.split('.').pop() ?? task.type,
  status: task.status,
  queueName: task.queueName,
  matched,
  createdAtUtc: task.createdAtUtc,
  ...(task.lastExecutionUtc !== undefined ? { lastExecutionUtc: task.lastExecutionUtc } : {}),
  ...(task.errorSummary !== undefined ? { errorSummary: task.errorSummary } : {}),
});

/**
 * One environment's answer to a search, from its existing endpoints: a task id (a GUID) is
 * GET /tasks/{id} (none: no hit); any other text is GET /tasks twice at once, with `searchTerm`
 * (partial match on type, handler or task key) and with `failureFingerprint` (a failure group's
 * fingerprint, exact), merged without repeats, newest first.
 */
export async function searchEnvironment(call: EnvironmentCall, environmentId: string, text: string): Promise<SearchAnswer> {
  const query = text.trim();
  if (query === '') throw new ConsoleError('invalid-arguments', 'Type a task id, a type, a key or a failure fingerprint to search for');
  if (query.length > SEARCH_MAX_LENGTH) throw new ConsoleError('invalid-arguments', `The search is longer than ${SEARCH_MAX_LENGTH} characters`);
  if (GUID.test(query)) {
    try {
      const task = await call(environmentId, 'tasks.get', { id: query });
      return { hits: [hitOf(environmentId, task, 'id')], total: 1 };
    } catch (err) {
      if (err instanceof ConsoleError && err.status === 404) return { hits: [], total: 0 };
      throw err;
    }
  }
  const page = { pageSize: SEARCH_PAGE_SIZE, sortBy: 'CreatedAtUtc', sortDescending: true };
  const [byText, byFingerprint] = await Promise.all([
    call(environmentId, 'tasks.list', { ...page, searchTerm: query }),
    call(environmentId, 'tasks.list', { ...page, failureFingerprint: query }),
  ]);
  const hits = new Map<string, SearchHit>();
  for (const task of byText.items) hits.set(task.id, hitOf(environmentId, task, 'type or key'));
  for (const task of byFingerprint.items) if (!hits.has(task.id)) hits.set(task.id, hitOf(environmentId, task, 'fingerprint'));
  const sorted = [...hits.values()].sort((a, b) => (a.createdAtUtc < b.createdAtUtc ? 1 : a.createdAtUtc > b.createdAtUtc ? -1 : 0));
  // Tasks both ways count once; the two totals may overlap beyond the first page, so the larger is a floor.
  return { hits: sorted, total: Math.max(byText.totalCount, byFingerprint.totalCount, sorted.length) };
}
