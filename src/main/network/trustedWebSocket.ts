import WebSocket, { type ClientOptions } from 'ws';

/** What a hub WebSocket adds to its TLS handshake: the CA list and whether to verify at all. */
export interface WebSocketTls {
  ca?: string[];
  rejectUnauthorized: boolean;
}

/** The constructor the hub client calls: `new WebSocket(url, protocols, { headers })`. */
export type WebSocketClass = new (address: string | URL, protocols?: string | string[], options?: ClientOptions) => WebSocket;

/**
 * A `ws` WebSocket class for the hub client's `WebSocket` option that connects with the
 * environment's trust: the hub client passes its own options (headers) and these are added.
 */
export function trustedWebSocket(tlsOptions: WebSocketTls): WebSocketClass {
  return class TrustedWebSocket extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[], options?: ClientOptions) {
      super(address, protocols, { ...options, ...tlsOptions });
    }
  };
}
