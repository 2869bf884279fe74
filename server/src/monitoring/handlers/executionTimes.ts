import type { RequestHandler } from 'express';
import { RANGE_PARAM } from '../../contracts/index.js';
import { QueryParams } from '../http/queryParams.js';
import { sendJson } from '../http/sendJson.js';
import { timeZoneParam } from '../http/timeZoneParam.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** GET /statistics/execution-times?range=&timeZone=. */
export function executionTimesHandler(ctx: MonitoringContext): RequestHandler {
  return async (req, res) => {
    const params = new QueryParams(req);
    const range = params.enumOf(RANGE_PARAM) ?? 'Today';
    const timeZone = timeZoneParam(params);
    sendJson(res, 200, await ctx.store.executionTimes(range, ctx.options.now(), timeZone));
  };
}
