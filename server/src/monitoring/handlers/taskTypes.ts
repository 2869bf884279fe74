import type { RequestHandler } from 'express';
import { RANGE_PARAM } from '../../contracts/index.js';
import { QueryParams } from '../http/queryParams.js';
import { sendJson } from '../http/sendJson.js';
import { timeZoneParam } from '../http/timeZoneParam.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** GET /statistics/task-types?range=&timeZone=. */
export function taskTypesHandler(ctx: MonitoringContext): RequestHandler {
  return async (req, res) => {
    const params = new QueryParams(req);
    const range = params.enumOf(RANGE_PARAM) ?? 'Today';
    const timeZone = timeZoneParam(params);
    sendJson(res, 200, await ctx.store.taskTypes(range, ctx.options.now(), timeZone));
  };
}
