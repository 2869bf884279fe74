import { insecureProductionRefusal } from '../environments/environment.js';
import { HttpTransportType } from '@microsoft/signalr';
import type { Environment } from '../../shared/environment.js';
import { AxiosHubHttpClient } from './AxiosHubHttpClient.js';
import { certificateVerdict, type VerifyRequest } from './certificateVerdict.js';
import { HUB_TRANSPORTS, refusedNetwork, type EnvironmentNetwork, type HttpTransport } from './environmentNetwork.js';
import { caListWith, environmentTrust, hasCustomTrust, type EnvironmentTrust } from './environmentTrust.js';
import { trustedWebSocket } from './trustedWebSocket.js';
import { refuseRedirects } from './refuseRedirects.js';
import { loginRequestFetch, type AnswerProxyLogin, type LoginRequest } from './loginRequestFetch.js';

/** The part of an Electron session the network uses. */
export interface NetworkSession {
  resolveProxy(url: string): Promise<string>;
  setCertificateVerifyProc(proc: ((request: VerifyRequest, callback: (verdict: number) => void) => void) | null): void;
}

/** The parts of the `electron` module the network uses (`net`, `session`). */
export interface ElectronNetworkApi<S extends NetworkSession = NetworkSession> {
  /** `net.request`: unlike `net.fetch` (electron/electron#44249) it raises `login` for a proxy that asks. */
  net: { request(options: { method: string; url: string; redirect: 'manual'; session: S }): LoginRequest };
  session: { defaultSession: S; fromPartition(partition: string): S };
}

/** No credentials for a proxy (the request gets its 407): until the services can answer. */
const noProxyLogin: AnswerProxyLogin = async () => null;

/** The in-memory session of an environment with its own certificate rules. */
export const partitionOf = (environmentId: string) => `svc-monitor-environment-${environmentId}`;

/**
 * Electron's network stack (Chromium: the operating system's trust store and proxy settings).
 * An environment without TLS settings of its own uses `net.request` on the default session; one
 * with an extra CA or "allow self-signed" gets its own in-memory session whose certificate
 * check applies them. A proxy that asks for credentials is answered by `login` (the keychain,
 * then a prompt). The hub's HTTP goes through the same requests. Its WebSocket is Node's
 * (the main process has no Chromium WebSocket): it trusts Node's roots, the operating
 * system's store and the extra CA, and where the system proxy applies to the hub's address
 * the hub uses long polling, which goes through Chromium and its proxy.
 */
export function electronNetwork<S extends NetworkSession>(electron: ElectronNetworkApi<S>, login: AnswerProxyLogin = noProxyLogin): (environment: Environment) => EnvironmentNetwork {
  return (environment) => {
    const insecure = insecureProductionRefusal(environment);
    if (insecure) return refusedNetwork(insecure);
    let trust: EnvironmentTrust = { allowSelfSigned: false };
    let session: S = electron.session.defaultSession;
    let scope = 'default';
    if (hasCustomTrust(environment)) {
      try {
        trust = environmentTrust(environment);
      } catch (err) {
        return refusedNetwork((err as Error).message);
      }
      // Its own session, so its own proxy credential cache: its first 407 is a first attempt.
      scope = partitionOf(environment.id);
      session = electron.session.fromPartition(scope);
      const rules = trust;
      session.setCertificateVerifyProc((request, callback) => callback(certificateVerdict(request, rules)));
    }
    const own = session;
    const fetch = loginRequestFetch((options) => electron.net.request({ ...options, session: own }), login, scope);
    const resolveProxy = (url: string) => own.resolveProxy(url);
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
