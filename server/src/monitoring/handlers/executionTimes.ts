import type { RequestHandler } from 'express';
import { QueryParams } from '../http/queryParams.js';
import { sendJson } from '../http/sendJson.js';
import { timeZoneParam } from '../http/timeZoneParam.js';
import type { MonitoringContext } from '../MonitoringContext.js';
import { RANGES } from './dashboardOverview.js';

/** GET /statistics/execution-times?range=&timeZone= (§4.11). */
export function executionTimesHandler(ctx: MonitoringContext): RequestHandler {
  return (req, res) => {
    const params = new QueryParams(req);
    const range = params.enumValue('range', RANGES) ?? 'Today';
    const timeZone = timeZoneParam(params);
    sendJson(res, 200, ctx.store.executionTimes(range, ctx.options.now(), timeZone));
  };
}
