import type { RequestHandler } from 'express';
import type { TrendPeriod } from '../../contracts/index.js';
import { QueryParams } from '../http/queryParams.js';
import { sendJson } from '../http/sendJson.js';
import { timeZoneParam } from '../http/timeZoneParam.js';
import type { MonitoringContext } from '../MonitoringContext.js';

export const PERIODS: readonly TrendPeriod[] = ['Last7Days', 'Last30Days', 'Last90Days'];

/** GET /statistics/success-rate-trend?period=&timeZone= (§4.11, D11). */
export function successRateTrendHandler(ctx: MonitoringContext): RequestHandler {
  return (req, res) => {
    const params = new QueryParams(req);
    const period = params.enumValue('period', PERIODS) ?? 'Last7Days';
    const timeZone = timeZoneParam(params);
    sendJson(res, 200, ctx.store.successRateTrend(period, ctx.options.now(), timeZone));
  };
}
