import type { ProblemDetails } from '../../../server/src/contracts/task.js';

/** The one error type every Platform.call rejects with. status 0 = network failure. */
export class ApiError extends Error {
  readonly status: number;
  /** Seconds to wait before retrying (Retry-After of a 429), when the server said so. */
  readonly retryAfterSeconds?: number;
  readonly problem?: ProblemDetails;

  constructor(status: number, message: string, options: { retryAfterSeconds?: number; problem?: ProblemDetails } = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.problem = options.problem;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError || (typeof value === 'object' && value !== null && (value as { name?: unknown }).name === 'ApiError' && typeof (value as { status?: unknown }).status === 'number');
}

/** A sentence for the user describing any error thrown by a platform call. */
export function describeError(error: unknown): string {
  if (isApiError(error)) {
    if (error.status === 0) return 'The server cannot be reached. Check the connection and try again.';
    if (error.status === 429) {
      const wait = error.retryAfterSeconds;
      return wait !== undefined ? `Too many attempts. Try again in ${formatWait(wait)}.` : 'Too many attempts. Try again later.';
    }
    return error.message || `Request failed (HTTP ${error.status}).`;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

export function formatWait(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 60) return `${s} second${s === 1 ? '' : 's'}`;
  const m = Math.ceil(s / 60);
  return `${m} minute${m === 1 ? '' : 's'}`;
}
