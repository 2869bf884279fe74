/**
 * The zod schemas of the answers and request bodies that the OpenAPI document describes from
 * code: the handlers parse request bodies with them and the document prints their JSON Schema, so
 * a field added to a contract type must be added here (the type-check compares each schema with
 * its contract type) and then appears in both.
 */
import { z } from 'zod';
import {
  TASK_STATUSES,
  type LoginRequest,
  type LoginResponse,
  type MagicResponse,
  type QueueMetrics,
  type TaskCounts,
  type TaskPage,
  type TaskSummary,
  type ValidateResponse,
} from '../../contracts/index.js';

/** True when A and B are the same type (not merely assignable one way). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

const isoTimestamp = z.string().meta({ format: 'date-time' });
const count = z.int().min(0);
const guid = z.string().meta({ format: 'uuid' });

export const taskSummarySchema = z.object({
  id: guid,
  type: z.string().meta({ description: 'Short type name in lists; full name in the detail.' }),
  status: z.enum(TASK_STATUSES),
  queueName: z.string(),
  createdAtUtc: isoTimestamp,
  lastExecutionUtc: isoTimestamp.optional().meta({ description: 'End of the last run.' }),
  startedAtUtc: isoTimestamp.optional().meta({ description: 'Start of the last (or current) run; absent when the row never ran.' }),
  scheduledExecutionUtc: isoTimestamp.optional(),
  isRecurring: z.boolean(),
  executionTimeMs: z.number().optional(),
  parentTaskId: guid.optional(),
  occurrenceMode: z.literal('Durable').optional(),
  misfirePolicy: z.enum(['ReplayAll', 'SkipOldest', 'Collapse', 'Skip']).optional(),
  timeZoneId: z.string().optional(),
  scheduleVersion: z.int().optional(),
  nominalSlotUtc: isoTimestamp.optional(),
  misfireKind: z.enum(['OnTime', 'CatchUp']).optional(),
  runDurationMs: z.number().optional().meta({
    description:
      'Additive (not in the spec): wall-clock length of the last finished run in ms, from its InProgress and end status-audit timestamps; present when the start was audited (audit level Full), also for a failed or timed-out run whose executionTimeMs reads 0.',
  }),
  errorSummary: z.string().optional().meta({ description: 'Additive: first line of the last error (at most 200 characters), on a row that has one.' }),
  reservedBy: z.string().optional().meta({
    description: 'Additive: on a Queued row taken ahead of a free worker, the engine instance that reserved it (its handler has not begun; any process can still cancel it).',
  }),
  reservedAtUtc: isoTimestamp.optional().meta({ description: 'Additive: when that instance reserved the row.' }),
});

export const taskPageSchema = z.object({ items: z.array(taskSummarySchema), totalCount: count, page: z.int().min(1), pageSize: z.int().min(1), totalPages: count });

export const loginRequestSchema = z.object({
  username: z.string({ error: 'The username is required.' }).min(1, { error: 'The username is required.' }),
  password: z.string({ error: 'The password is required.' }),
});

export const loginResponseSchema = z.object({
  token: z.string(),
  expiresAt: isoTimestamp,
  username: z.string(),
  canManage: z.boolean(),
});

export const magicResponseSchema = z.object({ token: z.string(), expiresAt: isoTimestamp, username: z.string() });

export const validateResponseSchema = z.object({
  isValid: z.boolean(),
  username: z.string(),
  expiresAt: isoTimestamp.optional(),
  canManage: z.boolean(),
});

export const taskCountsSchema = z.object({ all: count, standard: count, recurring: count, failed: count, occurrences: count });

export const queueMetricsSchema = z.object({
  queueName: z.string(),
  totalTasks: count,
  queuedTasks: count,
  inProgressTasks: count,
  completedTasks: count,
  failedTasks: count,
  cancelledTasks: count,
  successRate: z.number(),
  oldestQueuedAgeMs: z.number().min(0).optional().meta({ description: 'Additive: how long the next Queued row in line has waited since it became due (ms); absent when none is Queued.' }),
  finishedLastMinute: count.optional().meta({ description: 'Additive: runs of this queue that finished in the last minute.' }),
  reservedCount: count.optional().meta({
    description: 'Additive: of queuedTasks, the Queued rows an engine instance has reserved (taken ahead of a free worker; not started). Absent on a database from before reservations.',
  }),
});

// Each schema parses to exactly its contract type: a field added to one and not the other fails the type-check.
type Check<T extends true> = T;
export type SchemasMatchContracts = [
  Check<Same<z.output<typeof loginRequestSchema>, LoginRequest>>,
  Check<Same<z.output<typeof loginResponseSchema>, LoginResponse>>,
  Check<Same<z.output<typeof magicResponseSchema>, MagicResponse>>,
  Check<Same<z.output<typeof validateResponseSchema>, ValidateResponse>>,
  Check<Same<z.output<typeof taskCountsSchema>, TaskCounts>>,
  Check<Same<z.output<typeof queueMetricsSchema>, QueueMetrics>>,
  Check<Same<z.output<typeof taskSummarySchema>, TaskSummary>>,
  Check<Same<z.output<typeof taskPageSchema>, TaskPage>>,
];

/** Schemas printed as a reference to their own component wherever another schema holds them. */
const COMPONENTS = new Map<unknown, string>([[taskSummarySchema, 'TaskSummary']]);

/** A schema as an OpenAPI component: its JSON Schema without the dialect line, nested components as references. */
export function componentSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    io: 'output',
    override: (ctx) => {
      const name = COMPONENTS.get(ctx.zodSchema);
      if (name === undefined || (ctx.zodSchema as unknown) === schema) return;
      for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Record<string, unknown>)[key];
      (ctx.jsonSchema as Record<string, unknown>).$ref = `#/components/schemas/${name}`;
    },
  }) as Record<string, unknown>;
  const { $schema: _dialect, ...component } = json;
  return component;
}

/** The 400 errors of a body a schema refused, by the dotted path of each field (`body` for the whole). */
export function fieldErrors(error: z.ZodError): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const field = issue.path.length === 0 ? 'body' : issue.path.join('.');
    (errors[field] ??= []).push(issue.message);
  }
  return errors;
}
