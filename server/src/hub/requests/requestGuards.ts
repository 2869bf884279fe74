import type { IncomingMessage, ServerResponse } from 'node:http';
import { authorize, type HubContext } from '../HubContext.js';
import type { HubConnection } from '../HubConnection.js';
import { sendHubError } from '../httpErrors.js';

export type HubRequest = IncomingMessage & { body?: unknown };

/** Access check shared by every hub HTTP request; false when it already answered. */
export function allowed(ctx: HubContext, req: HubRequest, res: ServerResponse, query: URLSearchParams): { expiresAtMs?: number } | false {
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

export function connectionId(query: URLSearchParams, res: ServerResponse): string | undefined {
  const id = query.get('id');
  if (id === null || id === '') {
    sendHubError(res, 400, "The 'id' query parameter (connection token) is required.");
    return undefined;
  }
  return id;
}

/** The live connection named by `id`, or a 404 answer. */
export function httpConnection(ctx: HubContext, res: ServerResponse, id: string): HubConnection | undefined {
  const connection = ctx.registry.get(id);
  if (!connection) {
    sendHubError(res, 404, 'No connection with this id.');
    return undefined;
  }
  return connection;
}
