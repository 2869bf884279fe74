import { HttpTransportType, type HttpClient } from '@microsoft/signalr';
import type { CreateAxiosDefaults } from 'axios';
import { ConsoleError } from '../ConsoleError.js';
import type { Environment } from '../../shared/environment.js';
import type { WebSocketClass } from './trustedWebSocket.js';

/** How requests reach a host, as axios settings (adapter, fetch, agent, proxy). */
export type HttpTransport = Pick<CreateAxiosDefaults, 'adapter' | 'env' | 'httpsAgent' | 'proxy'>;

/** What the hub client of an environment is built with (merged into its connection options). */
export interface HubTransport {
  httpClient: HttpClient;
  transport: HttpTransportType;
  WebSocket: WebSocketClass;
}

/**
 * The way the console reaches one environment's host: the same stack and the same trust for
 * the API calls and for the hub (negotiate, long polling and the WebSocket).
 */
export interface EnvironmentNetwork {
  readonly http: HttpTransport;
  /** Hub options for a connection to `url` (asks the system proxy where that applies). */
  hub(url: string): Promise<HubTransport>;
}

/** Given an environment, the network to reach it with (see nodeNetwork and electronNetwork). */
export type NetworkFor = (environment: Environment) => EnvironmentNetwork;

/**
 * WebSockets first, long polling as the fallback. Server-sent events are left out: the
 * library's Node client for them opens its own connections, outside the environment's trust.
 */
export const HUB_TRANSPORTS = HttpTransportType.WebSockets | HttpTransportType.LongPolling;

/** An environment whose TLS settings cannot be used: every request fails with `reason`. */
export function refusedNetwork(reason: string): EnvironmentNetwork {
  const refuse = () => Promise.reject(new ConsoleError('network', reason));
  return { http: { adapter: refuse }, hub: refuse };
}
