import type { IncomingMessage, ServerResponse } from 'node:http';
import { authorize, type HubContext } from './HubContext.js';
import { sendHubError } from './httpErrors.js';
import type { HubConnection } from './HubConnection.js';
import { negotiate } from './negotiate.js';
import { readBody } from './readBody.js';
import { bindServerSentEvents } from './transports/serverSentEventsTransport.js';
import { LongPollingSink } from './transports/longPollingTransport.js';

type Req = IncomingMessage & { body?: unknown };

/** Access check shared by every hub HTTP request; false when it already answered. */
function allowed(ctx: HubContext, req: Req, res: ServerResponse, query: URLSearchParams): { expiresAtMs?: number } | false {
  if (ctx.isClosed()) {
    sendHubError(res, 503, 'The hub is shutting down.');
    return false;
  }
  const decision = authorize(ctx, req, query);
  if (!decision.ok) {
    sendHubError(res, decision.status, decision.message);
    return false;
  }
  return decision;
}

function connectionId(query: URLSearchParams, res: ServerResponse): string | undefined {
  const id = query.get('id');
  if (id === null || id === '') {
    sendHubError(res, 400, "The 'id' query parameter (connection token) is required.");
    return undefined;
  }
  return id;
}

/** POST {path}/negotiate */
export function handleNegotiate(ctx: HubContext, req: Req, res: ServerResponse, query: URLSearchParams): void {
  if (!allowed(ctx, req, res, query)) return;
  negotiate(ctx.registry, query, res);
}

/** GET {path}?id=…: the SSE stream (Accept: text/event-stream) or a long poll. */
/** A closed long-polling connection delivers what is left (its Close); the poll after that gets 204 and forgets it. */
function pollRetired(ctx: HubContext, id: string, res: ServerResponse): boolean {
  const retired = ctx.registry.getRetired(id);
  if (!(retired instanceof LongPollingSink)) return false;
  const drained = retired.finished;
  retired.poll(res);
  if (drained) ctx.registry.forgetRetired(id);
  return true;
}

export function handleGet(ctx: HubContext, req: Req, res: ServerResponse, query: URLSearchParams): void {
  const wantsSse = (req.headers.accept ?? '').includes('text/event-stream');
  const id = query.get('id');
  if (!wantsSse && id && !ctx.isClosed() && !ctx.registry.get(id)) {
    // A long-polling connection closed at its token's expiry: the poll that follows carries the
    // expired token, and must still get the Close "Token expired" (a 401 would hide it).
    const decision = authorize(ctx, req, query);
    if ((decision.ok || decision.status === 401) && pollRetired(ctx, id, res)) return;
  }
  const decision = allowed(ctx, req, res, query);
  if (!decision) return;
  if (connectionId(query, res) === undefined || id === null) return;
  const connection = ctx.registry.get(id);
  if (!connection) {
    sendHubError(res, 404, 'No connection with this id.');
    return;
  }
  if (wantsSse) {
    if (connection.isBound) {
      sendHubError(res, connection.transportKind === 'ServerSentEvents' ? 409 : 400, 'The connection already has a transport.');
      return;
    }
    bindServerSentEvents(req, res, connection);
    connection.expireAt(decision.expiresAtMs);
    return;
  }
  if (!connection.isBound) {
    const sink = new LongPollingSink(ctx.options.longPollTimeoutMs);
    connection.bind(sink);
    connection.expireAt(decision.expiresAtMs);
    sink.answerFirstPoll(res);
    return;
  }
  const sink = connection.transport;
  if (!(sink instanceof LongPollingSink)) {
    sendHubError(res, 400, 'Cannot change transports mid-connection.');
    return;
  }
  connection.touch();
  sink.poll(res);
}

function httpConnection(ctx: HubContext, res: ServerResponse, id: string): HubConnection | undefined {
  const connection = ctx.registry.get(id);
  if (!connection) {
    sendHubError(res, 404, 'No connection with this id.');
    return undefined;
  }
  return connection;
}

const sendsInFlight = new WeakSet<HubConnection>();

/** POST {path}?id=…: client messages for the SSE and long-polling transports. */
export async function handlePost(ctx: HubContext, req: Req, res: ServerResponse, query: URLSearchParams): Promise<void> {
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

/** DELETE {path}?id=…: the long-polling client ends its connection; the next poll gets 204. */
export function handleDelete(ctx: HubContext, req: Req, res: ServerResponse, query: URLSearchParams): void {
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
