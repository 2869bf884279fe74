import type { AuditLevel } from '../contracts/index.js';
import { OptionError } from '../options/OptionError.js';
import { parseDuration } from './duration.js';
import { assertTimeZone, cronFor, nextDue, type Recurrence } from './Recurrence.js';
import { resolveRetryPolicy, type RetryPolicy } from './RetryPolicy.js';
import type { DispatchOptions, RecurringOptions } from './types.js';
import {
  assertKnownKeys, assertPlainObject, checkAuditLevel, checkInstant, checkInt, checkNonEmptyString, checkStorableName, refuse, serializeRequest,
  UNSTORABLE_NAME,
} from './validation.js';
import { hasUnstorable } from './storableText.js';
import { uuidV7 } from './uuidV7.js';

/** A validated task, ready to be written in the next group commit. */
export interface DispatchPlan {
  id: string;
  type: string;
  handler: string;
  request: string;
  queue: string;
  taskKey: string | null;
  auditLevel: AuditLevel;
  createdAt: number;
  dueAt: number;
  scheduledAt: number | null;
  retryPolicy: string | null;
  timeoutMs: number | null;
  rateLimitKey: string | null;
  recurrence: Recurrence | null;
}

/** What planning needs to know about the engine. */
export interface PlanningContext {
  handlerOf(type: string): { handlerName: string; retry: RetryPolicy | undefined } | undefined;
  hasQueue(name: string): boolean;
  defaultRetry: RetryPolicy;
  defaultAuditLevel: AuditLevel;
  now(): number;
}

const DISPATCH_KEYS = new Set(['queue', 'runAt', 'delayMs', 'taskKey', 'retry', 'timeoutMs', 'auditLevel', 'rateLimitKey']);
const RECURRING_KEYS = new Set([
  'every', 'cron', 'timeZone', 'maxRuns', 'until', 'startAt', 'taskKey', 'queue', 'retry', 'timeoutMs', 'auditLevel', 'rateLimitKey',
]);

/** Validates a dispatch's type, request and options; throws an Error naming the problem. Writes nothing. */
export function planDispatch(c: PlanningContext, type: string, request: unknown, options: DispatchOptions): DispatchPlan {
  const plan = planTask(c, 'dispatch', type, request, options, DISPATCH_KEYS);
  const now = plan.createdAt;
  if (options.runAt !== undefined && options.delayMs !== undefined) {
    throw new OptionError('dispatch', 'runAt', 'cannot be given with option "delayMs": give one of them');
  }
  const runAt = checkInstant(options.runAt, 'dispatch: option "runAt"');
  let due = now;
  if (runAt !== undefined) due = runAt;
  if (options.delayMs !== undefined) {
    if (typeof options.delayMs !== 'number' || !Number.isFinite(options.delayMs)) {
      throw new OptionError('dispatch', 'delayMs', 'must be a number of milliseconds');
    }
    if (options.delayMs < 0) throw new OptionError('dispatch', 'delayMs', `must not be negative (got ${options.delayMs})`);
    due = now + options.delayMs;
  }
  plan.dueAt = due;
  plan.scheduledAt = runAt !== undefined || options.delayMs !== undefined ? due : null;
  return plan;
}

/** Validates an inline recurring task and computes its first due time; throws naming the problem. */
export function planRecurring(c: PlanningContext, type: string, request: unknown, options: RecurringOptions): DispatchPlan {
  const plan = planTask(c, 'recurring', type, request, options, RECURRING_KEYS);
  const now = plan.createdAt;
  const at = (n: string) => `recurring: option "${n}"`;
  if ((options.every === undefined) === (options.cron === undefined)) {
    throw new OptionError('recurring', 'every', 'or option "cron" is needed: give exactly one of them');
  }
  const r: Recurrence = {};
  if (options.every !== undefined) {
    const every = parseDuration(options.every);
    if (!Number.isFinite(every) || every < 1) {
      throw refuse(at('every'), `must be a positive interval (ms, or '30s', '5m', '1h'); got ${JSON.stringify(options.every)}`);
    }
    r.every = Math.round(every);
  }
  if (options.timeZone !== undefined) {
    checkNonEmptyString(options.timeZone, at('timeZone'));
    assertTimeZone(options.timeZone, at('timeZone'));
    r.timeZone = options.timeZone;
  }
  if (options.cron !== undefined) {
    checkNonEmptyString(options.cron, at('cron'));
    cronFor(options.cron, r.timeZone);
    r.cron = options.cron;
  }
  const maxRuns = checkInt(options.maxRuns, at('maxRuns'), 1);
  if (maxRuns !== undefined) r.maxRuns = maxRuns;
  const until = checkInstant(options.until, at('until'));
  if (until !== undefined) r.until = until;
  const startAt = checkInstant(options.startAt, at('startAt'));
  let first: number | null;
  if (r.every !== undefined) first = startAt ?? now + r.every;
  else first = nextDue(r, (startAt ?? now + 1) - 1);
  if (first === null || (r.until !== undefined && first > r.until)) {
    throw new RangeError('recurring: the series has no run (the cron never fires, or "until" is before the first run)');
  }
  plan.recurrence = r;
  plan.dueAt = first;
  plan.scheduledAt = first;
  return plan;
}

function planTask(
  c: PlanningContext,
  what: 'dispatch' | 'recurring',
  type: string,
  request: unknown,
  options: DispatchOptions | RecurringOptions,
  keys: ReadonlySet<string>,
): DispatchPlan {
  if (typeof type !== 'string' || type.length === 0) throw new TypeError(`${what}: type must be a non-empty string`);
  if (hasUnstorable(type)) throw new TypeError(`${what}: type ${UNSTORABLE_NAME}`);
  const reg = c.handlerOf(type);
  if (reg === undefined) throw new Error(`${what}: no handler is registered for task type "${type}"`);
  assertPlainObject(options, `${what}: options`);
  assertKnownKeys(options, keys, what);
  const requestText = serializeRequest(request);
  const at = (n: string) => `${what}: option "${n}"`;
  // A task names its queue; a name no queue was configured with runs on `default`.
  const named = checkStorableName(options.queue, at('queue'));
  const queue = named !== undefined && c.hasQueue(named) ? named : 'default';
  const taskKey = checkStorableName(options.taskKey, at('taskKey')) ?? null;
  const retry = options.retry === undefined ? null : resolveRetryPolicy(options.retry, reg.retry ?? c.defaultRetry, at('retry'));
  const timeoutMs = checkInt(options.timeoutMs, at('timeoutMs'), 1) ?? null;
  const auditLevel = checkAuditLevel(options.auditLevel, at('auditLevel')) ?? c.defaultAuditLevel;
  const rateLimitKey = checkStorableName(options.rateLimitKey, at('rateLimitKey')) ?? null;
  const now = c.now();
  return {
    id: uuidV7(),
    type,
    handler: reg.handlerName,
    request: requestText,
    queue,
    taskKey,
    auditLevel,
    createdAt: now,
    dueAt: now,
    scheduledAt: null,
    retryPolicy: retry === null ? null : JSON.stringify(retry),
    timeoutMs,
    rateLimitKey,
    recurrence: null,
  };
}
