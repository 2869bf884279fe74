import type { IncomingMessage } from 'node:http';

/** The JWT from `Authorization: Bearer …`, else the `access_token` query parameter (browsers' WebSockets and SSE). */
export function extractAccessToken(req: IncomingMessage, query: URLSearchParams): string | undefined {
  const header = req.headers.authorization;
  if (typeof header === 'string') {
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (match) return match[1].trim();
  }
  const fromQuery = query.get('access_token');
  return fromQuery === null || fromQuery === '' ? undefined : fromQuery;
}
