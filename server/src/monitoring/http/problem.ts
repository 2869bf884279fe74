import type { Response } from 'express';
import { PROBLEM_CONTENT_TYPE, problemDetails, problemInstance } from '../../contracts/problemDetails.js';
import { sendJson } from './sendJson.js';

/** RFC 9457 problem details: the body of every error outside the management responses. */
export function sendProblem(
  res: Response,
  status: number,
  detail?: string,
  errors?: Record<string, string[]>,
): void {
  const body = problemDetails(status, detail, errors, problemInstance(res.req?.originalUrl));
  sendJson(res, status, body, PROBLEM_CONTENT_TYPE);
}

/** A 400 naming the offending parameter(s); thrown by parsers, turned into a problem by the error handler. */
export class BadRequestError extends Error {
  constructor(readonly errors: Record<string, string[]>) {
    super(
      Object.entries(errors)
        .map(([k, v]) => `${k}: ${v.join(' ')}`)
        .join('; '),
    );
    this.name = 'BadRequestError';
  }
  static of(parameter: string, message: string): BadRequestError {
    return new BadRequestError({ [parameter]: [message] });
  }
}

export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}
