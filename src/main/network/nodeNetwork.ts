import { HttpTransportType } from '@microsoft/signalr';
import { Agent } from 'node:https';
import type { Environment } from '../../shared/environment.js';
import { insecureProductionRefusal } from '../environments/environment.js';
import { AxiosHubHttpClient } from './AxiosHubHttpClient.js';
import { HUB_TRANSPORTS, refusedNetwork, type EnvironmentNetwork, type HttpTransport, type NetworkFor } from './environmentNetwork.js';
import { caListWith, environmentTrust, hasCustomTrust } from './environmentTrust.js';
import { loginRequestFetch, type AnswerProxyLogin } from './loginRequestFetch.js';
import { nodeLoginRequest } from './nodeLoginRequest.js';
import { refuseRedirects } from './refuseRedirects.js';
import { trustedWebSocket, type WebSocketTls } from './trustedWebSocket.js';

/** A proxy every environment is reached through, and who answers when it asks for credentials. */
export interface NodeProxy {
  /** `http://host:port`. */
  url: string;
  login: AnswerProxyLogin;
}

/**
 * Node's own network stack (TLS with Node's CA list, no proxy): the console's services run on
 * it outside Electron (tests, the e2e harness). An extra CA is trusted in addition to Node's
 * roots; "allow self-signed" turns verification off. The API calls and the hub share it.
 */
export function nodeNetwork(environment: Environment): EnvironmentNetwork {
  return nodeNetworkVia()(environment);
}

/**
 * `nodeNetwork`, optionally through a proxy: requests then go out as Electron's `net.request`
 * does (a 407 asks `proxy.login`, a refused answer asks again, no redirect is followed) and the
 * hub uses long polling through it, as the app does behind a proxy.
 */
export function nodeNetworkVia(proxy?: NodeProxy): NetworkFor {
  return (environment) => {
    const insecure = insecureProductionRefusal(environment);
    if (insecure) return refusedNetwork(insecure);
    let tlsOptions: WebSocketTls = { rejectUnauthorized: true };
    if (hasCustomTrust(environment)) {
      try {
        const trust = environmentTrust(environment);
        tlsOptions = { rejectUnauthorized: !trust.allowSelfSigned, ...(trust.extraCa ? { ca: caListWith(trust.extraCa.pems) } : {}) };
      } catch (err) {
        return refusedNetwork((err as Error).message);
      }
    }
    if (proxy) {
      const tls = { rejectUnauthorized: tlsOptions.rejectUnauthorized, ...(tlsOptions.ca ? { ca: tlsOptions.ca } : {}) };
      const fetch = refuseRedirects(loginRequestFetch(nodeLoginRequest({ proxy: proxy.url, tls }), proxy.login, hasCustomTrust(environment) ? `environment:${environment.id}` : 'default'));
      const http: HttpTransport = { adapter: 'fetch', env: { fetch: (input, init) => fetch(input instanceof URL ? input.href : input, init) } };
      return { http, hub: async () => ({ httpClient: new AxiosHubHttpClient(http), transport: HttpTransportType.LongPolling, WebSocket: trustedWebSocket(tlsOptions) }) };
    }
    // Proxies configured in the process environment must not see tokens meant for other hosts.
    const http: HttpTransport = hasCustomTrust(environment) ? { proxy: false, httpsAgent: new Agent(tlsOptions) } : { proxy: false };
    return {
      http,
      hub: async () => ({ httpClient: new AxiosHubHttpClient(http), transport: HUB_TRANSPORTS, WebSocket: trustedWebSocket(tlsOptions) }),
    };
  };
}
