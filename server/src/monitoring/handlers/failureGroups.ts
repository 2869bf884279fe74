import type { RequestHandler } from 'express';
import { RANGE_PARAM } from '../../contracts/index.js';
import { QueryParams } from '../http/queryParams.js';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** GET /statistics/failure-groups?range=: failed runs by task type and exception fingerprint. */
export function failureGroupsHandler(ctx: MonitoringContext): RequestHandler {
  return async (req, res) => {
    const range = new QueryParams(req).enumOf(RANGE_PARAM) ?? 'Today';
    sendJson(res, 200, await ctx.store.failureGroups(range, ctx.options.now()));
  };
}
