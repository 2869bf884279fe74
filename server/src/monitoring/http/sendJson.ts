import type { Response } from 'express';

/** The one serializer of the service: fields whose value is null (or undefined) are omitted. */
export function toJson(body: unknown): string {
  return JSON.stringify(body, (_key, value: unknown) => (value === null ? undefined : value));
}

export function sendJson(res: Response, status: number, body: unknown, contentType = 'application/json; charset=utf-8'): void {
  // The answer's message (a management status's, a problem's detail) for the operator audit.
  if (typeof body === 'object' && body !== null) {
    const { message, detail } = body as { message?: unknown; detail?: unknown };
    const said = typeof message === 'string' ? message : detail;
    if (typeof said === 'string') res.locals.answerMessage = said;
  }
  res.status(status).setHeader('Content-Type', contentType);
  res.end(toJson(body));
}
