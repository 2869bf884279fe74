import type { RequestHandler } from 'express';
import { parsePageRequest } from '../http/pageRequest.js';
import { sendProblem } from '../http/problem.js';
import { pathId } from '../http/pathId.js';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** GET /tasks/{id}/status-audit: a page of status transitions, newest first (skip ≥ 0, take 0..500). */
export function statusAuditHandler(ctx: MonitoringContext): RequestHandler {
  return async (req, res) => {
    const id = pathId(req);
    const page = await ctx.store.statusAudits(id, parsePageRequest(req));
    if (!page) return sendProblem(res, 404, `Task ${id} was not found.`);
    sendJson(res, 200, page);
  };
}
