import { OptionReader } from '../options/OptionReader.js';
import { optionRef, refuse } from './validation.js';

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

const KEYS = ['attempts', 'backoffMs', 'backoff', 'maxBackoffMs', 'jitter'];
const BACKOFF_KINDS: readonly BackoffKind[] = ['fixed', 'exponential'];

/**
 * Validates retry options over a base policy. `optionName` names them (`createEngine: option
 * "retry"`); a refusal is an OptionError naming the owner and the option (`retry.attempts`).
 */
export function resolveRetryPolicy(options: unknown, base: RetryPolicy, optionName: string): RetryPolicy {
  if (options === undefined) return base;
  const ref = optionRef(optionName);
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw refuse(optionName, 'must be an object like { attempts: 3, backoffMs: 500 }');
  }
  const read = new OptionReader<RetryOptions>(ref?.owner ?? optionName, options, KEYS, ref?.option);
  const backoff = read.oneOf('backoff', BACKOFF_KINDS, base.backoff);
  const jitterDefault = read.has('backoff') ? (backoff === 'fixed' ? 0 : 0.2) : base.jitter;
  return {
    attempts: read.integer('attempts', base.attempts, { min: 1 }),
    backoffMs: read.integer('backoffMs', base.backoffMs, { min: 0 }),
    backoff,
    maxBackoffMs: read.integer('maxBackoffMs', base.maxBackoffMs, { min: 0 }),
    jitter: read.number('jitter', jitterDefault, { min: 0, max: 1 }),
  };
}

/** Delay before retry number `retry` (1 = the first retry). */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const raw = policy.backoff === 'fixed' ? policy.backoffMs : policy.backoffMs * 2 ** (retry - 1);
  const capped = Math.min(raw, policy.maxBackoffMs);
  return Math.max(0, Math.round(capped * (1 - policy.jitter * random())));
}
