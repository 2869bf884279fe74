/**
 * What an HTTP answer that is not a success means to a client: the status, a sentence for the
 * user (the problem's detail or title, followed by the parameters it names), the problem details when the body is one, and how long
 * to wait before retrying. Both clients turn every error answer into their error type with this.
 */
import type { ProblemDetails } from './task.js';

export interface ApiFailure {
  status: number;
  message: string;
  problem?: ProblemDetails;
  /** Seconds to wait before retrying (from Retry-After), when the server said so. */
  retryAfterSeconds?: number;
}

/** Retry-After is either delta-seconds or an HTTP-date; a date in the past means 0. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

export function isProblemDetails(body: unknown): body is ProblemDetails {
  return typeof body === 'object' && body !== null && typeof (body as { title?: unknown }).title === 'string';
}

/**
 * Reads an error answer. `retryAfter` is the raw header value; any other body (text, an
 * object with `message`) still yields a message.
 */
export function readFailure(status: number, body: unknown, retryAfter?: string | null, now: number = Date.now()): ApiFailure {
  const problem = isProblemDetails(body) ? body : undefined;
  const other = typeof body === 'object' && body !== null ? (body as { message?: unknown }).message : undefined;
  const summary = problem?.detail || problem?.title || (typeof other === 'string' && other !== '' ? other : undefined) || `HTTP ${status}`;
  // The parameters a 400 names are part of what the user must read.
  const named = Object.entries(problem?.errors ?? {}).map(([name, reasons]) => `${name}: ${reasons.join(' ')}`);
  const message = named.length > 0 ? `${summary} ${named.join('; ')}` : summary;
  const retryAfterSeconds = parseRetryAfter(retryAfter, now);
  return {
    status,
    message,
    ...(problem ? { problem } : {}),
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  };
}
