import { z } from 'zod';
import type { TaskStatus } from '../../../server/src/contracts/task.js';
import type { ApiOperation } from '../../../server/src/contracts/api.js';

/** The status names (main imports only types from the contracts; the check below keeps the list complete). */
const TASK_STATUSES = ['WaitingQueue', 'Queued', 'InProgress', 'Pending', 'Cancelled', 'Completed', 'Failed', 'ServiceStopped'] as const;
type MissingStatus = Exclude<TaskStatus, (typeof TASK_STATUSES)[number]>;
const everyStatusListed: [MissingStatus] extends [never] ? true : MissingStatus = true;
void everyStatusListed;

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const guidSchema = z.string().regex(GUID, 'must be a GUID');
const isoDate = z
  .string()
  .max(64)
  .refine((v) => /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 date');
const text = z.string().max(500, 'is longer than 500 characters');
const range = z.enum(['Today', 'Week', 'Month', 'All']);
const page = { skip: z.number().int().min(0).optional(), take: z.number().int().min(0).max(500).optional() };
const empty = z.strictObject({});

export const taskQueryFields = {
  statuses: z.array(z.enum(TASK_STATUSES)).max(TASK_STATUSES.length).optional(),
  queueName: text.optional(),
  taskType: text.optional(),
  isRecurring: z.boolean().optional(),
  createdAfter: isoDate.optional(),
  createdBefore: isoDate.optional(),
  searchTerm: text.optional(),
  parentTaskId: guidSchema.optional(),
  onlyOccurrences: z.boolean().optional(),
  onlyCatchUp: z.boolean().optional(),
  sortBy: z
    .enum(['CreatedAtUtc', 'LastExecutionUtc', 'ScheduledExecutionUtc', 'StartedAtUtc', 'Status', 'Type', 'QueueName', 'ExecutionTimeMs'])
    .optional(),
  sortDescending: z.boolean().optional(),
  page: z.number().int().min(1).max(1_000_000).optional(),
  pageSize: z.number().int().min(1).max(500).optional(),
};

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
  'dashboard.overview': z.strictObject({ range: range.optional() }),
  'dashboard.recentActivity': z.strictObject({ limit: z.number().int().min(1).max(100).optional() }),
  'queues.list': empty,
  'queues.tasks': z.strictObject({ ...taskQueryFields, name: z.string().min(1).max(200) }),
  'statistics.successRateTrend': z.strictObject({ period: z.enum(['Last7Days', 'Last30Days', 'Last90Days']).optional() }),
  'statistics.taskTypes': z.strictObject({ range: range.optional() }),
  'statistics.executionTimes': z.strictObject({ range: range.optional() }),
  'management.requeue': z.strictObject({ id: guidSchema }),
  'management.resume': z.strictObject({ id: guidSchema }),
  'management.cancel': z.strictObject({ id: guidSchema }),
} as const satisfies Partial<Record<ApiOperation, z.ZodType>>;

export type ProxiedOperation = keyof typeof OPERATION_PARAMS;
export const PROXIED_OPERATIONS = Object.keys(OPERATION_PARAMS) as ProxiedOperation[];

export function isProxiedOperation(value: unknown): value is ProxiedOperation {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(OPERATION_PARAMS, value);
}
