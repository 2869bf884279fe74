import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import { readFailure } from '../../../server/src/contracts/apiProblem.js';
import { ConsoleError } from '../ConsoleError.js';

export const DEFAULT_API_BASE_PATH = '/svc-monitoring/api';

/** One axios instance per environment; never throws on an HTTP status (callers decide). */
export function createHttpClient(baseUrl: string, timeoutMs: number): AxiosInstance {
  return axios.create({
    baseURL: baseUrl,
    timeout: timeoutMs,
    validateStatus: () => true,
    maxRedirects: 0,
    headers: { Accept: 'application/json' },
    // Proxies configured in the environment must not see tokens meant for loopback hosts.
    proxy: false,
  });
}

/** Turns a non-2xx answer into a ConsoleError carrying the problem details. */
export function httpError(response: AxiosResponse, what: string): ConsoleError {
  const retryAfter = response.headers['retry-after'] as string | undefined;
  const failure = readFailure(response.status, response.data, retryAfter);
  return new ConsoleError(
    response.status === 401 ? 'login-required' : 'http',
    `${what}: ${failure.message}`,
    failure.status,
    failure.problem,
    failure.retryAfterSeconds,
  );
}

/** Turns a transport failure (refused, timeout, DNS) into a ConsoleError. */
export function networkError(err: unknown, what: string): ConsoleError {
  if (err instanceof ConsoleError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ConsoleError('network', `${what}: ${message}`);
}
