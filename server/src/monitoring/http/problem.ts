import type { Response } from 'express';
import type { ProblemDetails } from '../../contracts/index.js';
import { sendJson } from './sendJson.js';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

const TYPES: Record<number, string> = {
  400: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.1',
  401: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.2',
  403: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.4',
  404: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.5',
  405: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.6',
  413: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.14',
  415: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.5.16',
  429: 'https://www.rfc-editor.org/rfc/rfc6585#section-4',
  500: 'https://www.rfc-editor.org/rfc/rfc9110#section-15.6.1',
};

export function problem(status: number, detail?: string, errors?: Record<string, string[]>): ProblemDetails {
  return { type: TYPES[status] ?? 'about:blank', title: TITLES[status] ?? 'Error', status, detail, errors };
}

/** RFC 9457 problem details: the body of every error outside the management responses. */
export function sendProblem(
  res: Response,
  status: number,
  detail?: string,
  errors?: Record<string, string[]>,
): void {
  const body: ProblemDetails = { ...problem(status, detail, errors), instance: res.req?.originalUrl?.split('?')[0] };
  sendJson(res, status, body, 'application/problem+json; charset=utf-8');
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
