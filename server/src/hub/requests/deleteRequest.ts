import type { ServerResponse } from 'node:http';
import type { HubContext } from '../HubContext.js';
import { sendHubError } from '../httpErrors.js';
import { allowed, connectionId, httpConnection, type HubRequest } from './requestGuards.js';

/** DELETE {path}?id=…: the long-polling client ends its connection; the next poll gets 204. */
export function handleDelete(ctx: HubContext, req: HubRequest, res: ServerResponse, query: URLSearchParams): void {
  if (!allowed(ctx, req, res, query)) return;
  const id = connectionId(query, res);
  if (id === undefined) return;
  const connection = httpConnection(ctx, res, id);
  if (!connection) return;
  if (connection.transportKind !== 'LongPolling') {
    sendHubError(res, 400, 'Cannot terminate this connection using the DELETE endpoint.');
    return;
  }
  connection.terminate();
  res.writeHead(202, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': 0 });
  res.end();
}
