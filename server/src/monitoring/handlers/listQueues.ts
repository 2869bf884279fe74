import type { RequestHandler } from 'express';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** GET /queues (§4.10). */
export function listQueuesHandler(ctx: MonitoringContext): RequestHandler {
  return (_req, res) => sendJson(res, 200, ctx.store.queueMetrics(ctx.options.now()));
}
