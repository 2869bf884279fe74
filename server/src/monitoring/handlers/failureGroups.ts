import type { RequestHandler } from 'express';
import { QueryParams } from '../http/queryParams.js';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

import { RANGES } from './dashboardOverview.js';

/** GET /statistics/failure-groups?range=: failed runs by task type and exception fingerprint. */
export function failureGroupsHandler(ctx: MonitoringContext): RequestHandler {
  return (req, res) => {
    const range = new QueryParams(req).enumValue('range', RANGES) ?? 'Today';
    sendJson(res, 200, ctx.store.failureGroups(range, ctx.options.now()));
  };
}
