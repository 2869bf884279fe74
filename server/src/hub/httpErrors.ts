import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';

function problem(status: number, detail: string): string {
  return JSON.stringify({ type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail });
}

/** A problem-details answer on a hub HTTP request (401 adds `WWW-Authenticate: Bearer`). */
export function sendHubError(res: ServerResponse, status: number, detail: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = problem(status, detail);
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/problem+json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  };
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
  res.writeHead(status, headers);
  res.end(body);
}

/** The same answer written on a raw socket, for refused WebSocket upgrades. */
export function rejectUpgrade(socket: Duplex, status: number, detail: string): void {
  if (socket.destroyed) return;
  const body = problem(status, detail);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: application/problem+json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  if (status === 401) lines.push('WWW-Authenticate: Bearer');
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}
