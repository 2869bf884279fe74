import axios, { AxiosError, type AxiosInstance } from 'axios';
import type { ApiOperation, ApiParams, ApiResult } from '../../../../server/src/contracts/api.js';
import { readFailure } from '../../../../server/src/contracts/apiProblem.js';
import { buildApiRequest, requestUrl } from '../../../../server/src/contracts/apiRequest.js';
import { ApiError } from '../ApiError.js';

/** Performs catalogue operations over HTTP with axios; the bearer comes from getToken(). */
export function createWebApiClient(apiBase: string, getToken: () => string | undefined, instance: AxiosInstance = axios.create()) {
  return async function call<Op extends ApiOperation>(op: Op, params: ApiParams<Op>): Promise<ApiResult<Op>> {
    const request = buildApiRequest(op, params);
    const token = getToken();
    try {
      const response = await instance.request<ApiResult<Op>>({
        method: request.method,
        url: requestUrl(apiBase, request),
        data: request.body,
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
    const failure = readFailure(response.status, response.data, response.headers?.['retry-after'] as string | undefined);
    return new ApiError(failure.status, failure.message, failure);
  }
  if (error instanceof ApiError) return error;
  return new ApiError(0, error instanceof Error ? error.message : String(error));
}
