import type { ProblemDetails } from '../../server/src/contracts/task.js';

export type ConsoleErrorCode =
  /** Arguments refused by main's validation. */
  | 'invalid-arguments'
  /** No such environment / channel / operation. */
  | 'not-found'
  /** The environment needs a (new) login. */
  | 'login-required'
  /** The server answered with an error status. */
  | 'http'
  /** The server could not be reached. */
  | 'network'
  /** Refused by policy (e.g. management not available for this session). */
  | 'forbidden'
  /** The state changed under the call (e.g. the environment's address was edited during a login). */
  | 'conflict';

/** A failure as it crosses the bridge: code, message, HTTP status, problem details, wait. */
export interface SerializedConsoleError {
  code: ConsoleErrorCode;
  message: string;
  status?: number;
  problem?: ProblemDetails;
  /** Seconds to wait before retrying (a 429's Retry-After). */
  retryAfterSeconds?: number;
}
