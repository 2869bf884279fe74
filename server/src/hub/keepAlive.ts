import type { ConnectionRegistry } from './ConnectionRegistry.js';

export const CLIENT_TIMEOUT_ERROR = 'Server timeout elapsed without receiving a message from the client.';

export interface KeepAliveOptions {
  keepAliveIntervalMs: number;
  clientTimeoutMs: number;
}

/**
 * One timer for the whole hub: a ping (type 6) to every open connection that was sent nothing
 * for keepAliveIntervalMs; Close with an error to a client silent for clientTimeoutMs (a
 * long-polling client, which sends no pings, counts as present while a poll is pending); drops
 * negotiated connections that never connected.
 */
export function startKeepAlive(registry: ConnectionRegistry, options: KeepAliveOptions): () => void {
  const tickMs = Math.max(5, Math.floor(Math.min(options.keepAliveIntervalMs, options.clientTimeoutMs) / 4));
  const timer = setInterval(() => {
    const now = Date.now();
    for (const connection of [...registry.connections()]) {
      if (connection.transport?.clientPresent?.() === true) connection.touch();
      if (now - connection.lastReceivedAtMs >= options.clientTimeoutMs) {
        connection.close(connection.isBound ? CLIENT_TIMEOUT_ERROR : undefined);
      } else if (connection.isOpen && now - connection.lastSentAtMs >= options.keepAliveIntervalMs) {
        connection.ping();
      }
    }
    registry.dropExpiredRetired(now);
  }, tickMs);
  timer.unref();
  return () => clearInterval(timer);
}
