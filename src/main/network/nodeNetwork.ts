import { Agent } from 'node:https';
import type { Environment } from '../../shared/environment.js';
import { insecureProductionRefusal } from '../environments/environment.js';
import { AxiosHubHttpClient } from './AxiosHubHttpClient.js';
import { HUB_TRANSPORTS, refusedNetwork, type EnvironmentNetwork, type HttpTransport } from './environmentNetwork.js';
import { caListWith, environmentTrust, hasCustomTrust } from './environmentTrust.js';
import { trustedWebSocket, type WebSocketTls } from './trustedWebSocket.js';

/**
 * Node's own network stack (TLS with Node's CA list, no proxy): the console's services run on
 * it outside Electron (tests, the e2e harness). An extra CA is trusted in addition to Node's
 * roots; "allow self-signed" turns verification off. The API calls and the hub share it.
 */
export function nodeNetwork(environment: Environment): EnvironmentNetwork {
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
  // Proxies configured in the process environment must not see tokens meant for other hosts.
  const http: HttpTransport = hasCustomTrust(environment) ? { proxy: false, httpsAgent: new Agent(tlsOptions) } : { proxy: false };
  return {
    http,
    hub: async () => ({ httpClient: new AxiosHubHttpClient(http), transport: HUB_TRANSPORTS, WebSocket: trustedWebSocket(tlsOptions) }),
  };
}
