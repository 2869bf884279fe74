import type { RateLimit } from './RateLimiter.js';
import { resolveRetryPolicy, type RetryPolicy } from './RetryPolicy.js';
import type { HandleOptions, TaskHandler } from './types.js';
import { assertKnownKeys, assertPlainObject, checkInt, checkStorableName, refuse } from './validation.js';

/** A handler registered with `engine.handle(type, handler, options)`, options resolved. */
export interface Registration {
  type: string;
  handler: TaskHandler<unknown>;
  handlerName: string;
  retry: RetryPolicy | undefined;
  timeoutMs: number | undefined;
  rateLimit: RateLimit | undefined;
}

const HANDLE_KEYS = new Set(['handlerName', 'retry', 'timeoutMs', 'rateLimit']);

/** Validates `engine.handle` arguments; every error names the type and the option. */
export function resolveRegistration(type: string, handler: unknown, options: HandleOptions, engineRetry: RetryPolicy): Registration {
  checkStorableName(type, 'handle: type');
  if (typeof type !== 'string') throw new TypeError('handle: type must be a non-empty string');
  if (typeof handler !== 'function') throw new TypeError(`handle("${type}"): handler must be a function`);
  const what = `handle("${type}")`;
  assertPlainObject(options, `${what}: options`);
  assertKnownKeys(options, HANDLE_KEYS, what);
  const handlerName = checkStorableName(options.handlerName, `${what}: option "handlerName"`) ?? `${type}Handler`;
  const retry = options.retry === undefined ? undefined : resolveRetryPolicy(options.retry, engineRetry, `${what}: option "retry"`);
  const timeoutMs = checkInt(options.timeoutMs, `${what}: option "timeoutMs"`, 1);
  let rateLimit: RateLimit | undefined;
  if (options.rateLimit !== undefined) {
    assertPlainObject(options.rateLimit, `${what}: option "rateLimit"`);
    assertKnownKeys(options.rateLimit, new Set(['limit', 'windowMs']), `${what}: option "rateLimit"`);
    rateLimit = {
      limit: checkInt(options.rateLimit.limit, `${what}: option "rateLimit.limit"`, 1) ?? NaN,
      windowMs: checkInt(options.rateLimit.windowMs, `${what}: option "rateLimit.windowMs"`, 1) ?? NaN,
    };
    if (Number.isNaN(rateLimit.limit) || Number.isNaN(rateLimit.windowMs)) {
      throw refuse(`${what}: option "rateLimit"`, 'needs both limit and windowMs');
    }
  }
  return { type, handler: handler as TaskHandler<unknown>, handlerName, retry, timeoutMs, rateLimit };
}
