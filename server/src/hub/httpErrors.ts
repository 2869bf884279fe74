import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { PROBLEM_CONTENT_TYPE, problemDetails, problemInstance } from '../contracts/problemDetails.js';

/** Mounted under an express app the request's own url lost the mount path; `originalUrl` keeps it. */
function requestPath(req: (IncomingMessage & { originalUrl?: string }) | undefined): string | undefined {
  return problemInstance(req?.originalUrl ?? req?.url);
}

function problemBody(status: number, detail: string, req: IncomingMessage | undefined): string {
  return JSON.stringify(problemDetails(status, detail, undefined, requestPath(req)));
}

/** A problem-details answer on a hub HTTP request (401 adds `WWW-Authenticate: Bearer`). */
export function sendHubError(res: ServerResponse, status: number, detail: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = problemBody(status, detail, res.req);
  const headers: Record<string, string | number> = {
    'Content-Type': PROBLEM_CONTENT_TYPE,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  };
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
  res.writeHead(status, headers);
  res.end(body);
}

/** The same answer written on a raw socket, for refused WebSocket upgrades. */
export function rejectUpgrade(socket: Duplex, status: number, detail: string, req?: IncomingMessage): void {
  if (socket.destroyed) return;
  const body = problemBody(status, detail, req);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Connection: close',
    `Content-Type: ${PROBLEM_CONTENT_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  if (status === 401) lines.push('WWW-Authenticate: Bearer');
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}
