import type { ConsoleErrorCode, SerializedConsoleError } from '../shared/consoleError.js';
import type { ProblemDetails } from '../../server/src/contracts/task.js';

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
