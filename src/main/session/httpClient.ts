import axios, { type AxiosInstance, type AxiosResponse } from 'axios';
import { readFailure } from '../../../server/src/contracts/apiProblem.js';
import { ConsoleError } from '../ConsoleError.js';
import type { HttpTransport } from '../network/environmentNetwork.js';
import { describeNetworkFailure } from '../network/describeNetworkFailure.js';
import { redirectRefusal } from '../network/refuseRedirects.js';

export const DEFAULT_API_BASE_PATH = '/svc-monitoring/api';

/**
 * One axios instance per environment over the environment's network; never throws on an HTTP
 * status (callers decide).
 */
export function createHttpClient(baseUrl: string, timeoutMs: number, transport: HttpTransport): AxiosInstance {
  return axios.create({
    ...transport,
    baseURL: baseUrl,
    timeout: timeoutMs,
    validateStatus: () => true,
    maxRedirects: 0,
    headers: { Accept: 'application/json' },
  });
}

/** Turns a non-2xx answer into a ConsoleError carrying the problem details. */
export function httpError(response: AxiosResponse, what: string): ConsoleError {
  // Redirects are never followed (maxRedirects 0 here, refuseRedirects on the fetch stacks).
  if (response.status >= 300 && response.status < 400) {
    return new ConsoleError('network', `${what}: ${redirectRefusal(response.headers['location'] as string | undefined, String(response.config.baseURL ?? '') + String(response.config.url ?? ''))}`);
  }
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

/** Turns a transport failure (refused, timeout, DNS, an untrusted certificate) into a ConsoleError. */
export function networkError(err: unknown, what: string): ConsoleError {
  if (err instanceof ConsoleError) return err;
  return new ConsoleError('network', `${what}: ${describeNetworkFailure(err)}`);
}
