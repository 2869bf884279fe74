import type { RequestHandler } from 'express';
import { QueryParams } from '../http/queryParams.js';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** GET /dashboard/recent-activity?limit= (§4.9: default 50, clamped to 1..100). */
export function recentActivityHandler(ctx: MonitoringContext): RequestHandler {
  return (req, res) => {
    const limit = new QueryParams(req).int('limit', 50, 1, 100);
    sendJson(res, 200, ctx.store.recentActivity(limit));
  };
}
