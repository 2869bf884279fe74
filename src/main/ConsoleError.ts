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

/** An error that crosses the IPC boundary intact (code, message, HTTP status, problem). */
export class ConsoleError extends Error {
  override name = 'ConsoleError';
  constructor(
    readonly code: ConsoleErrorCode,
    message: string,
    readonly status?: number,
    readonly problem?: ProblemDetails,
    /** Seconds to wait (429). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  toJSON(): SerializedConsoleError {
    return {
      code: this.code,
      message: this.message,
      ...(this.status !== undefined ? { status: this.status } : {}),
      ...(this.problem !== undefined ? { problem: this.problem } : {}),
      ...(this.retryAfterSeconds !== undefined ? { retryAfterSeconds: this.retryAfterSeconds } : {}),
    };
  }
}

export interface SerializedConsoleError {
  code: ConsoleErrorCode;
  message: string;
  status?: number;
  problem?: ProblemDetails;
  retryAfterSeconds?: number;
}
