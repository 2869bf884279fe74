/**
 * Builds the HTTP request of an API operation from the route catalogue: the path with its
 * parameters filled in (URL-encoded), the query (arrays repeat the parameter, undefined and
 * empty values are left out), the JSON body of POST operations, and whether a bearer and the
 * management checks apply. Both clients send what this returns.
 */
import type { ApiOperation, ApiParams } from './api.js';
import { API_ROUTES, pathParamsOf, type ApiRouteSpec, type HttpMethod } from './apiRoutes.js';

export interface ApiRequest {
  method: HttpMethod;
  /** Path under the API base, parameters filled in. */
  path: string;
  /** Query pairs in catalogue order (a repeated name for array values). */
  query: Array<[string, string]>;
  /** JSON body of POST operations (`{}` when the operation reads none). */
  body?: Record<string, unknown>;
  /** Send the session's bearer token. */
  authenticated: boolean;
  /** A management action (answers a body with `status` on 404/409/501/503 too). */
  management: boolean;
}

export function buildApiRequest<Op extends ApiOperation>(operation: Op, params: ApiParams<Op>): ApiRequest {
  const route: ApiRouteSpec | undefined = Object.prototype.hasOwnProperty.call(API_ROUTES, operation) ? API_ROUTES[operation] : undefined;
  if (!route) throw new Error(`Unknown API operation "${String(operation)}"`);
  const values = (params ?? {}) as Record<string, unknown>;
  const path = route.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined || value === null || value === '') throw new Error(`${operation}: the path parameter "${name}" is missing`);
    return encodeURIComponent(String(value));
  });
  const query: Array<[string, string]> = [];
  for (const spec of route.query) {
    const value = values[spec.name];
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) for (const item of value) query.push([spec.name, String(item)]);
    else query.push([spec.name, String(value)]);
  }
  let body: Record<string, unknown> | undefined;
  if (route.method === 'POST') {
    body = {};
    for (const field of route.body ?? []) if (values[field] !== undefined) body[field] = values[field];
  }
  return {
    method: route.method,
    path,
    query,
    ...(body ? { body } : {}),
    authenticated: route.auth === 'bearer' || route.auth === 'optional-bearer',
    management: route.management,
  };
}

/** The query as a string without the leading `?` (empty when there is none). */
export function queryString(request: Pick<ApiRequest, 'query'>): string {
  return new URLSearchParams(request.query).toString();
}

/** The request's path and query under `apiBase`. */
export function requestUrl(apiBase: string, request: Pick<ApiRequest, 'path' | 'query'>): string {
  const qs = queryString(request);
  return `${apiBase.replace(/\/+$/, '')}${request.path}${qs ? `?${qs}` : ''}`;
}

/** Parameter names an operation takes: its path parameters, query parameters and body fields. */
export function parameterNamesOf(operation: ApiOperation): string[] {
  const route: ApiRouteSpec = API_ROUTES[operation];
  return [...pathParamsOf(route.path), ...route.query.map((q) => q.name), ...(route.body ?? [])];
}
