import type { ServerResponse } from 'node:http';
import type { HubContext } from '../HubContext.js';
import type { HubConnection } from '../HubConnection.js';
import { sendHubError } from '../httpErrors.js';
import { readBody } from '../readBody.js';
import { allowed, connectionId, httpConnection, type HubRequest } from './requestGuards.js';

const sendsInFlight = new WeakSet<HubConnection>();

/** POST {path}?id=…: client messages for the SSE and long-polling transports. */
export async function handlePost(ctx: HubContext, req: HubRequest, res: ServerResponse, query: URLSearchParams): Promise<void> {
  if (!allowed(ctx, req, res, query)) return;
  const id = connectionId(query, res);
  if (id === undefined) return;
  const connection = httpConnection(ctx, res, id);
  if (!connection) return;
  if (connection.transportKind === 'WebSockets') {
    sendHubError(res, 405, 'POST requests are not allowed on WebSocket connections.');
    return;
  }
  if (!connection.isBound) {
    sendHubError(res, 400, 'The connection has no transport yet: open the event stream or poll first.');
    return;
  }
  // TransportProtocols.md: a send while another is outstanding is refused with 409.
  if (sendsInFlight.has(connection)) {
    sendHubError(res, 409, 'Another send request is in progress for this connection.');
    return;
  }
  sendsInFlight.add(connection);
  // One POST may carry several records; each record is limited by maxMessageBytes.
  const body = await readBody(req, ctx.options.maxMessageBytes * 4 + 1024).finally(() => sendsInFlight.delete(connection));
  if (!body.ok) {
    const error = `The message exceeds the maximum message size of ${ctx.options.maxMessageBytes} bytes.`;
    connection.close(error);
    sendHubError(res, 413, error);
    return;
  }
  connection.receive(body.text);
  res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': 0 });
  res.end();
}
