import type { RequestHandler } from 'express';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** GET /tasks/counts: counts by category, read from the counters. */
export function taskCountsHandler(ctx: MonitoringContext): RequestHandler {
  return async (_req, res) => sendJson(res, 200, await ctx.store.counts());
}
