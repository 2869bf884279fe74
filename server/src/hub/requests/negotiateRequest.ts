import type { ServerResponse } from 'node:http';
import { clientKey, type HubContext } from '../HubContext.js';
import { negotiate } from '../negotiate.js';
import { allowed, type HubRequest } from './requestGuards.js';

/** POST {path}/negotiate */
export function handleNegotiate(ctx: HubContext, req: HubRequest, res: ServerResponse, query: URLSearchParams): void {
  if (!allowed(ctx, req, res, query)) return;
  negotiate(ctx.registry, query, res, clientKey(ctx, req));
}
