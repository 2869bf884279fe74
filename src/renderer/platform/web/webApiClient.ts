import axios, { AxiosError, type AxiosInstance } from 'axios';
import type { ApiOperation, ApiParams, ApiResult } from '../../../../server/src/contracts/api.js';
import type { ProblemDetails } from '../../../../server/src/contracts/task.js';
import { ApiError } from '../ApiError.js';
import { routeFor, serializeQuery } from './httpRoutes.js';

/** Performs catalogue operations over HTTP with axios; the bearer comes from getToken(). */
export function createWebApiClient(apiBase: string, getToken: () => string | undefined, instance: AxiosInstance = axios.create()) {
  return async function call<Op extends ApiOperation>(op: Op, params: ApiParams<Op>): Promise<ApiResult<Op>> {
    const route = routeFor(op, params);
    const qs = serializeQuery(route.query);
    const token = getToken();
    try {
      const response = await instance.request<ApiResult<Op>>({
        method: route.method,
        url: `${apiBase}${route.path}${qs ? `?${qs}` : ''}`,
        data: route.body,
        headers: {
          Accept: 'application/json',
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
        },
      });
      return response.data;
    } catch (error) {
      throw toApiError(error);
    }
  };
}

export function toApiError(error: unknown): ApiError {
  if (error instanceof AxiosError) {
    const response = error.response;
    if (!response) return new ApiError(0, error.message || 'Network error');
    const data = response.data as Partial<ProblemDetails> & { message?: string } | undefined;
    const problem = data && typeof data === 'object' && typeof data.title === 'string' ? (data as ProblemDetails) : undefined;
    const retryHeader = response.headers?.['retry-after'] as string | undefined;
    const retryAfterSeconds = parseRetryAfter(retryHeader);
    const message =
      (problem && (problem.detail || problem.title)) ||
      (data && typeof data === 'object' && typeof data.message === 'string' ? data.message : undefined) ||
      `HTTP ${response.status}`;
    return new ApiError(response.status, message, { retryAfterSeconds, problem });
  }
  if (error instanceof ApiError) return error;
  return new ApiError(0, error instanceof Error ? error.message : String(error));
}

/** Retry-After is delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}
