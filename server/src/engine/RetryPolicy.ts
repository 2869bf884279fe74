export type BackoffKind = 'fixed' | 'exponential';

/** Retry options (per dispatch, per handler, or engine default). */
export interface RetryOptions {
  /** Total attempts per delivery, including the first (1 = no retry). */
  attempts?: number;
  /** Delay before the first retry; exponential backoff doubles it per retry. Default 1000. */
  backoffMs?: number;
  /** Default 'exponential'. */
  backoff?: BackoffKind;
  /** Upper bound of one delay. Default 300000 (5 min). */
  maxBackoffMs?: number;
  /** Random fraction (0..1) taken off each delay. Default 0.2 for exponential, 0 for fixed. */
  jitter?: number;
}

export interface RetryPolicy {
  attempts: number;
  backoffMs: number;
  backoff: BackoffKind;
  maxBackoffMs: number;
  jitter: number;
}

export const NO_RETRY: RetryPolicy = { attempts: 1, backoffMs: 1000, backoff: 'exponential', maxBackoffMs: 300_000, jitter: 0.2 };

const KEYS = new Set(['attempts', 'backoffMs', 'backoff', 'maxBackoffMs', 'jitter']);

/** Validates retry options over a base policy; errors name `optionName`. */
export function resolveRetryPolicy(options: unknown, base: RetryPolicy, optionName: string): RetryPolicy {
  if (options === undefined) return base;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${optionName} must be an object like { attempts: 3, backoffMs: 500 }`);
  }
  const o = options as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!KEYS.has(k)) throw new TypeError(`${optionName}: unknown option "${k}"`);
  const intAtLeast = (k: string, min: number, dflt: number): number => {
    const v = o[k];
    if (v === undefined) return dflt;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
      throw new TypeError(`${optionName}.${k} must be an integer >= ${min}`);
    }
    return v;
  };
  const backoff = o['backoff'] ?? base.backoff;
  if (backoff !== 'fixed' && backoff !== 'exponential') {
    throw new TypeError(`${optionName}.backoff must be 'fixed' or 'exponential'`);
  }
  const jitterDefault = o['backoff'] === undefined ? base.jitter : backoff === 'fixed' ? 0 : 0.2;
  const jitter = o['jitter'] ?? jitterDefault;
  if (typeof jitter !== 'number' || !(jitter >= 0 && jitter <= 1)) {
    throw new TypeError(`${optionName}.jitter must be a number between 0 and 1`);
  }
  return {
    attempts: intAtLeast('attempts', 1, base.attempts),
    backoffMs: intAtLeast('backoffMs', 0, base.backoffMs),
    backoff,
    maxBackoffMs: intAtLeast('maxBackoffMs', 0, base.maxBackoffMs),
    jitter,
  };
}

/** Delay before retry number `retry` (1 = the first retry). */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const raw = policy.backoff === 'fixed' ? policy.backoffMs : policy.backoffMs * 2 ** (retry - 1);
  const capped = Math.min(raw, policy.maxBackoffMs);
  return Math.max(0, Math.round(capped * (1 - policy.jitter * random())));
}
