import type { RequestHandler } from 'express';
import { LIMIT_PARAM } from '../../contracts/index.js';
import { QueryParams } from '../http/queryParams.js';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** GET /dashboard/recent-activity?limit= (default 50, clamped to 1..100). */
export function recentActivityHandler(ctx: MonitoringContext): RequestHandler {
  return async (req, res) => {
    const limit = new QueryParams(req).intOf(LIMIT_PARAM);
    sendJson(res, 200, await ctx.store.recentActivity(limit));
  };
}
