import { z } from 'zod';
import { API_LIMITS, DASHBOARD_RANGES, SEARCH_SCOPES, TASK_SORT_FIELDS, TREND_PERIODS } from '../../../server/src/contracts/apiRoutes.js';
import { OPERATOR_ACTIONS, OPERATOR_AUDIT_RESULTS } from '../../../server/src/contracts/operatorAudit.js';
import { TASK_STATUSES } from '../../../server/src/contracts/task.js';
import type { ProxiedOperation } from '../../shared/proxiedOperations.js';

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const guidSchema = z.string().regex(GUID, 'must be a GUID');
const isoDate = z
  .string()
  .max(64)
  .refine((v) => /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 date');
const text = z.string().max(500, 'is longer than 500 characters');
const range = z.enum(DASHBOARD_RANGES);
const page = { skip: z.number().int().min(0).optional(), take: z.number().int().min(0).max(API_LIMITS.maxTake).optional() };
const empty = z.strictObject({});
/** An IANA zone name; the server checks that it knows the zone. */
const timeZone = z.string().min(1).max(100).optional();

export const taskQueryFields = {
  statuses: z.array(z.enum(TASK_STATUSES)).max(TASK_STATUSES.length).optional(),
  queueName: text.optional(),
  taskType: text.optional(),
  isRecurring: z.boolean().optional(),
  createdAfter: isoDate.optional(),
  createdBefore: isoDate.optional(),
  searchTerm: text.optional(),
  searchScope: z.enum(SEARCH_SCOPES).optional(),
  requestSearch: text.optional(),
  failureFingerprint: text.optional(),
  parentTaskId: guidSchema.optional(),
  onlyOccurrences: z.boolean().optional(),
  onlyCatchUp: z.boolean().optional(),
  sortBy: z.enum(TASK_SORT_FIELDS).optional(),
  sortDescending: z.boolean().optional(),
  page: z.number().int().min(1).max(API_LIMITS.maxPage).optional(),
  pageSize: z.number().int().min(1).max(API_LIMITS.maxPageSize).optional(),
};

/** A bulk action's filter: the list filter without paging and sorting. */
const { sortBy: _sortBy, sortDescending: _sortDescending, page: _page, pageSize: _pageSize, ...bulkFilterFields } = taskQueryFields;
void [_sortBy, _sortDescending, _page, _pageSize];

/** The queue's task list takes the queue from its path, not from the query. */
const { queueName: _queueFromPath, ...queueTaskQueryFields } = taskQueryFields;
void _queueFromPath;

/**
 * The parameters each operation of `ApiOperations` accepts from the renderer. Unknown keys
 * are refused. The `auth.*` operations are not reachable through the proxy: logging in goes
 * through the session channels so that the token never reaches the renderer.
 */
export const OPERATION_PARAMS = {
  'config.get': empty,
  'tasks.list': z.strictObject(taskQueryFields),
  'tasks.counts': empty,
  'tasks.get': z.strictObject({ id: guidSchema }),
  'tasks.statusAudit': z.strictObject({ id: guidSchema, ...page }),
  'tasks.runsAudit': z.strictObject({ id: guidSchema, ...page }),
  'tasks.executionLogs': z.strictObject({ id: guidSchema, ...page }),
  'tasks.occurrences': z.strictObject({ id: guidSchema, nonTerminalOnly: z.boolean().optional(), ...page }),
  'dashboard.overview': z.strictObject({ range: range.optional(), timeZone }),
  'dashboard.recentActivity': z.strictObject({ limit: z.number().int().min(1).max(API_LIMITS.maxRecentActivity).optional() }),
  'queues.list': empty,
  'queues.tasks': z.strictObject({ ...queueTaskQueryFields, name: z.string().min(1).max(200) }),
  'statistics.successRateTrend': z.strictObject({ period: z.enum(TREND_PERIODS).optional(), timeZone }),
  'statistics.taskTypes': z.strictObject({ range: range.optional(), timeZone }),
  'statistics.executionTimes': z.strictObject({ range: range.optional(), timeZone }),
  'statistics.failureGroups': z.strictObject({ range: range.optional() }),
  'management.requeue': z.strictObject({ id: guidSchema }),
  'management.resume': z.strictObject({ id: guidSchema }),
  'management.cancel': z.strictObject({ id: guidSchema }),
  'management.retry': z.strictObject({ id: guidSchema }),
  'management.bulk': z.strictObject({ action: z.enum(['requeue', 'retry', 'cancel']), filter: z.strictObject(bulkFilterFields), expectedCount: z.number().int().min(0) }),
  'management.bulkStatus': z.strictObject({ operationId: guidSchema }),
  'audit.list': z.strictObject({
    actor: z.string().max(200).optional(),
    action: z.enum(OPERATOR_ACTIONS).optional(),
    target: z.string().max(200).optional(),
    result: z.enum(OPERATOR_AUDIT_RESULTS).optional(),
    from: isoDate.optional(),
    to: isoDate.optional(),
    page: z.number().int().min(1).max(API_LIMITS.maxPage).optional(),
    pageSize: z.number().int().min(1).max(API_LIMITS.maxPageSize).optional(),
  }),
} as const satisfies { [Op in ProxiedOperation]: z.ZodType };

export const PROXIED_OPERATIONS = Object.keys(OPERATION_PARAMS) as ProxiedOperation[];

export function isProxiedOperation(value: unknown): value is ProxiedOperation {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(OPERATION_PARAMS, value);
}
