import type { RequestHandler } from 'express';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** GET /queues: the metrics of every queue. */
export function listQueuesHandler(ctx: MonitoringContext): RequestHandler {
  return async (_req, res) => sendJson(res, 200, await ctx.store.queueMetrics(ctx.options.now()));
}
