import type { ServerResponse } from 'node:http';
import { authorize, type HubContext } from '../HubContext.js';
import { sendHubError } from '../httpErrors.js';
import { bindServerSentEvents } from '../transports/serverSentEventsTransport.js';
import { LongPollingSink } from '../transports/longPollingTransport.js';
import { allowed, connectionId, type HubRequest } from './requestGuards.js';

/** A closed long-polling connection delivers what is left (its Close); the poll after that gets 204 and forgets it. */
function pollRetired(ctx: HubContext, id: string, res: ServerResponse): boolean {
  const retired = ctx.registry.getRetired(id);
  if (!(retired instanceof LongPollingSink)) return false;
  const drained = retired.finished;
  retired.poll(res);
  if (drained) ctx.registry.forgetRetired(id);
  return true;
}

/** GET {path}?id=…: the SSE stream (Accept: text/event-stream) or a long poll. */
export function handleGet(ctx: HubContext, req: HubRequest, res: ServerResponse, query: URLSearchParams): void {
  const wantsSse = (req.headers.accept ?? '').includes('text/event-stream');
  const id = query.get('id');
  if (!wantsSse && id && !ctx.isClosed() && !ctx.registry.get(id)) {
    // A retired connection answers only an authenticated poll. A long-polling connection closed
    // at its token's expiry: the poll that follows carries that genuine but expired token, and
    // must still get the Close "Token expired" (a 401 would hide it).
    const decision = authorize(ctx, req, query);
    if ((decision.ok || decision.expired === true) && pollRetired(ctx, id, res)) return;
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
