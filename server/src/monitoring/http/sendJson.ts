import type { Response } from 'express';

/** The one serializer of the service: fields whose value is null (or undefined) are omitted. */
export function toJson(body: unknown): string {
  return JSON.stringify(body, (_key, value: unknown) => (value === null ? undefined : value));
}

export function sendJson(res: Response, status: number, body: unknown, contentType = 'application/json; charset=utf-8'): void {
  res.status(status).setHeader('Content-Type', contentType);
  res.end(toJson(body));
}
