import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { authorize, clientKey, parseUrl, type HubContext } from './HubContext.js';
import { rejectUpgrade } from './httpErrors.js';
import { bindWebSocket } from './transports/webSocketTransport.js';

/**
 * An HTTP upgrade on the hub path: access check (refusals answered over raw HTTP), then the
 * negotiated connection named by `id`, or a new one without negotiation (skipNegotiation).
 */
export function createUpgradeHandler(ctx: HubContext, wss: WebSocketServer) {
  return (req: IncomingMessage, socket: Duplex, head: Buffer): boolean => {
    const { pathname, query } = parseUrl(req.url);
    if (pathname !== ctx.options.path) return false;
    if (ctx.isClosed()) {
      rejectUpgrade(socket, 503, 'The hub is shutting down.', req);
      return true;
    }
    const decision = authorize(ctx, req, query);
    if (!decision.ok) {
      rejectUpgrade(socket, decision.status, decision.message, req);
      return true;
    }
    const id = query.get('id');
    let connection;
    if (id === null || id === '') {
      const created = ctx.registry.create(false, clientKey(ctx, req));
      if (!created.ok) {
        rejectUpgrade(socket, created.status, created.message, req);
        return true;
      }
      connection = created.connection;
    } else connection = ctx.registry.get(id);
    if (!connection) {
      rejectUpgrade(socket, 404, 'No connection with this id.', req);
      return true;
    }
    if (connection.isBound) {
      // TransportProtocols.md: a second WebSocket for the connection is a 409 Conflict.
      const second = connection.transportKind === 'WebSockets';
      rejectUpgrade(socket, second ? 409 : 400, second ? 'The connection already has a WebSocket.' : 'Cannot change transports mid-connection.', req);
      return true;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (connection.isClosed || connection.isBound) {
        ws.terminate();
        return;
      }
      ws.on('error', () => undefined);
      bindWebSocket(ws, connection);
      connection.expireAt(decision.expiresAtMs);
    });
    return true;
  };
}
