import type { ServerResponse } from 'node:http';
import type { ConnectionRegistry } from './ConnectionRegistry.js';
import { sendHubError } from './httpErrors.js';
import type { TransportKind } from './TransportSink.js';

export const TRANSPORTS: readonly TransportKind[] = ['WebSockets', 'ServerSentEvents', 'LongPolling'];

export interface NegotiateResponse {
  negotiateVersion: 0 | 1;
  connectionId: string;
  connectionToken?: string;
  availableTransports: { transport: TransportKind; transferFormats: ['Text'] }[];
}

/**
 * POST {path}/negotiate?negotiateVersion=N (TransportProtocols.md): creates a connection.
 * Version 1 (and later requests) answers with a separate connectionToken the client passes as
 * `id`; version 0 (or no version) only has the connectionId. JSON hub protocol only: Text.
 */
export function negotiate(registry: ConnectionRegistry, query: URLSearchParams, res: ServerResponse, client: string): void {
  const requested = Number.parseInt(query.get('negotiateVersion') ?? '0', 10);
  const version: 0 | 1 = Number.isFinite(requested) && requested >= 1 ? 1 : 0;
  const created = registry.create(version === 1, client);
  if (!created.ok) {
    if (created.status === 503) res.setHeader('Retry-After', '30');
    sendHubError(res, created.status, created.message);
    return;
  }
  const { connection } = created;
  const body: NegotiateResponse = {
    negotiateVersion: version,
    connectionId: connection.connectionId,
    ...(version === 1 ? { connectionToken: connection.token } : {}),
    availableTransports: TRANSPORTS.map((transport) => ({ transport, transferFormats: ['Text'] })),
  };
  const text = JSON.stringify(body);
  res.writeHead(200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}
