/**
 * The one builder of RFC 9457 problem details for every error the server answers: the monitoring
 * API, the management endpoints and the hub. A status gets the RFC section that defines it as its
 * `type` and its reason phrase as `title`; a status without a defining section is `about:blank`.
 */
import type { ProblemDetails } from './task.js';

const RFC9110 = 'https://www.rfc-editor.org/rfc/rfc9110#section-';

const KNOWN: Record<number, { title: string; type: string }> = {
  400: { title: 'Bad Request', type: `${RFC9110}15.5.1` },
  401: { title: 'Unauthorized', type: `${RFC9110}15.5.2` },
  403: { title: 'Forbidden', type: `${RFC9110}15.5.4` },
  404: { title: 'Not Found', type: `${RFC9110}15.5.5` },
  405: { title: 'Method Not Allowed', type: `${RFC9110}15.5.6` },
  409: { title: 'Conflict', type: `${RFC9110}15.5.10` },
  413: { title: 'Payload Too Large', type: `${RFC9110}15.5.14` },
  415: { title: 'Unsupported Media Type', type: `${RFC9110}15.5.16` },
  429: { title: 'Too Many Requests', type: 'https://www.rfc-editor.org/rfc/rfc6585#section-4' },
  500: { title: 'Internal Server Error', type: `${RFC9110}15.6.1` },
  501: { title: 'Not Implemented', type: `${RFC9110}15.6.2` },
  503: { title: 'Service Unavailable', type: `${RFC9110}15.6.4` },
};

/** The media type of every problem-details body. */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

/** A problem-details body; `instance` is the request path (without its query). */
export function problemDetails(
  status: number,
  detail?: string,
  errors?: Record<string, string[]>,
  instance?: string,
): ProblemDetails {
  const known = KNOWN[status];
  return {
    type: known?.type ?? 'about:blank',
    title: known?.title ?? 'Error',
    status,
    ...(detail !== undefined ? { detail } : {}),
    ...(instance !== undefined ? { instance } : {}),
    ...(errors !== undefined ? { errors } : {}),
  };
}

/** The request path a problem names as its `instance`: the URL without its query. */
export function problemInstance(url: string | undefined): string | undefined {
  return url === undefined ? undefined : url.split('?')[0];
}
