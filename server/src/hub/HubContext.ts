import type { IncomingMessage } from 'node:http';
import type { HubAccessDecision } from './createHub.js';
import type { ConnectionRegistry } from './ConnectionRegistry.js';
import type { ResolvedHubOptions } from './options.js';
import { extractAccessToken } from './accessToken.js';

/** What the request handlers share. */
export interface HubContext {
  options: ResolvedHubOptions;
  registry: ConnectionRegistry;
  isClosed(): boolean;
}

/** Asks the host's access function, with the token the request carries; a throwing hook is a 401. */
export function authorize(ctx: HubContext, req: IncomingMessage, query: URLSearchParams): HubAccessDecision {
  try {
    return ctx.options.access(req, extractAccessToken(req, query));
  } catch (err) {
    return { ok: false, status: 401, message: err instanceof Error ? err.message : 'Access refused.' };
  }
}

/** The path without trailing slashes, and the query, of a request URL. */
export function parseUrl(url: string | undefined): { pathname: string; query: URLSearchParams } {
  const parsed = new URL(url ?? '/', 'http://hub.invalid');
  const pathname = parsed.pathname.length > 1 ? parsed.pathname.replace(/\/+$/, '') : parsed.pathname;
  return { pathname, query: parsed.searchParams };
}

/** The client a connection is counted against (the host's clientKey, else the socket's peer). */
export function clientKey(ctx: HubContext, req: IncomingMessage): string {
  try {
    const key = ctx.options.clientKey?.(req);
    if (key !== undefined) return key;
  } catch {
    /* fall back to the socket's peer */
  }
  return req.socket?.remoteAddress ?? 'unknown';
}
