import type { ErrorRequestHandler } from 'express';
import { isStoreUnavailable } from '../../storage/isStoreUnavailable.js';
import { BadRequestError, NotFoundError, sendProblem } from './problem.js';

/** Every error under the API becomes a problem; bad input is 4xx, never 500; a store that cannot answer now is 503. */
export function problemErrorHandler(log: (message: string) => void): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) return next(err);
    if (err instanceof BadRequestError) return sendProblem(res, 400, 'One or more parameters are invalid.', err.errors);
    if (err instanceof NotFoundError) return sendProblem(res, 404, err.message);
    const e = err as { type?: string; status?: number; statusCode?: number; message?: string };
    const status = e?.status ?? e?.statusCode;
    if (e?.type === 'entity.parse.failed') return sendProblem(res, 400, 'The request body is not valid JSON.', { body: ['Malformed JSON.'] });
    if (e?.type === 'entity.too.large') return sendProblem(res, 413, 'The request body is too large.');
    if (typeof status === 'number' && status >= 400 && status < 500) return sendProblem(res, status, e.message);
    if (isStoreUnavailable(err)) {
      log(`svc-monitoring: the store could not answer: ${(err as Error)?.message ?? String(err)}`);
      return sendProblem(res, 503, 'The task store cannot be reached now; the request changed nothing it reports and may be sent again.');
    }
    log(`svc-monitoring: unexpected error: ${(err as Error)?.stack ?? String(err)}`);
    sendProblem(res, 500, 'An unexpected error occurred.');
  };
}
