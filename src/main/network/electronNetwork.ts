import { insecureProductionRefusal } from '../environments/environment.js';
import { HttpTransportType } from '@microsoft/signalr';
import type { Environment } from '../../shared/environment.js';
import { AxiosHubHttpClient } from './AxiosHubHttpClient.js';
import { certificateVerdict, type VerifyRequest } from './certificateVerdict.js';
import { HUB_TRANSPORTS, refusedNetwork, type EnvironmentNetwork, type HttpTransport } from './environmentNetwork.js';
import { caListWith, environmentTrust, hasCustomTrust, type EnvironmentTrust } from './environmentTrust.js';
import { trustedWebSocket } from './trustedWebSocket.js';
import { refuseRedirects } from './refuseRedirects.js';

type Fetch = (input: string | Request, init?: RequestInit) => Promise<Response>;

/** The part of an Electron session the network uses. */
export interface NetworkSession {
  fetch: Fetch;
  resolveProxy(url: string): Promise<string>;
  setCertificateVerifyProc(proc: ((request: VerifyRequest, callback: (verdict: number) => void) => void) | null): void;
}

/** The parts of the `electron` module the network uses (`net`, `session`). */
export interface ElectronNetworkApi {
  net: { fetch: Fetch };
  session: { defaultSession: Pick<NetworkSession, 'resolveProxy'>; fromPartition(partition: string): NetworkSession };
}

/** The in-memory session of an environment with its own certificate rules. */
export const partitionOf = (environmentId: string) => `svc-monitor-environment-${environmentId}`;

/**
 * Electron's network stack (Chromium: the operating system's trust store and proxy settings).
 * An environment without TLS settings of its own uses `net.fetch` on the default session; one
 * with an extra CA or "allow self-signed" gets its own in-memory session whose certificate
 * check applies them. The hub's HTTP goes through the same fetch. Its WebSocket is Node's
 * (the main process has no Chromium WebSocket): it trusts Node's roots, the operating
 * system's store and the extra CA, and where the system proxy applies to the hub's address
 * the hub uses long polling, which goes through Chromium and its proxy.
 */
export function electronNetwork(electron: ElectronNetworkApi): (environment: Environment) => EnvironmentNetwork {
  return (environment) => {
    const insecure = insecureProductionRefusal(environment);
    if (insecure) return refusedNetwork(insecure);
    let trust: EnvironmentTrust = { allowSelfSigned: false };
    let fetch: Fetch = (input, init) => electron.net.fetch(input, init);
    let resolveProxy = (url: string) => electron.session.defaultSession.resolveProxy(url);
    if (hasCustomTrust(environment)) {
      try {
        trust = environmentTrust(environment);
      } catch (err) {
        return refusedNetwork((err as Error).message);
      }
      const session = electron.session.fromPartition(partitionOf(environment.id));
      const rules = trust;
      session.setCertificateVerifyProc((request, callback) => callback(certificateVerdict(request, rules)));
      fetch = (input, init) => session.fetch(input, init);
      resolveProxy = (url) => session.resolveProxy(url);
    }
    const noRedirects = refuseRedirects(fetch);
    const http: HttpTransport = { adapter: 'fetch', env: { fetch: (input, init) => noRedirects(input instanceof URL ? input.href : input, init) } };
    const webSocketTls = { ca: caListWith(trust.extraCa?.pems ?? []), rejectUnauthorized: !trust.allowSelfSigned };
    return {
      http,
      hub: async (url) => {
        const direct = (await resolveProxy(url).catch(() => 'unknown')).trim() === 'DIRECT';
        return {
          httpClient: new AxiosHubHttpClient(http),
          transport: direct ? HUB_TRANSPORTS : HttpTransportType.LongPolling,
          WebSocket: trustedWebSocket(webSocketTls),
        };
      },
    };
  };
}
