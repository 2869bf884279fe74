import type { RequestHandler } from 'express';
import type { DashboardRange } from '../../contracts/index.js';
import { QueryParams } from '../http/queryParams.js';
import { sendJson } from '../http/sendJson.js';
import { timeZoneParam } from '../http/timeZoneParam.js';
import type { MonitoringContext } from '../MonitoringContext.js';

export const RANGES: readonly DashboardRange[] = ['Today', 'Week', 'Month', 'All'];

/** GET /dashboard/overview?range=&timeZone= (§4.8, D11). */
export function dashboardOverviewHandler(ctx: MonitoringContext): RequestHandler {
  return (req, res) => {
    const params = new QueryParams(req);
    const range = params.enumValue('range', RANGES) ?? 'Today';
    const timeZone = timeZoneParam(params);
    sendJson(res, 200, ctx.store.overview(range, ctx.options.now(), timeZone));
  };
}
