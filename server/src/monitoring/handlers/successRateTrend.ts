import type { RequestHandler } from 'express';
import type { TrendPeriod } from '../../contracts/index.js';
import { QueryParams } from '../http/queryParams.js';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

export const PERIODS: readonly TrendPeriod[] = ['Last7Days', 'Last30Days', 'Last90Days'];

/** GET /statistics/success-rate-trend?period= (§4.11, D11). */
export function successRateTrendHandler(ctx: MonitoringContext): RequestHandler {
  return (req, res) => {
    const period = new QueryParams(req).enumValue('period', PERIODS) ?? 'Last7Days';
    sendJson(res, 200, ctx.store.successRateTrend(period, ctx.options.now()));
  };
}
