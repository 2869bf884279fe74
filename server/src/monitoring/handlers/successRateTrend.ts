import type { RequestHandler } from 'express';
import { PERIOD_PARAM } from '../../contracts/index.js';
import { QueryParams } from '../http/queryParams.js';
import { sendJson } from '../http/sendJson.js';
import { timeZoneParam } from '../http/timeZoneParam.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** GET /statistics/success-rate-trend?period=&timeZone=. */
export function successRateTrendHandler(ctx: MonitoringContext): RequestHandler {
  return async (req, res) => {
    const params = new QueryParams(req);
    const period = params.enumOf(PERIOD_PARAM) ?? 'Last7Days';
    const timeZone = timeZoneParam(params);
    sendJson(res, 200, await ctx.store.successRateTrend(period, ctx.options.now(), timeZone));
  };
}
