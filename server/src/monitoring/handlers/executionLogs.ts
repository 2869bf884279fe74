import type { RequestHandler } from 'express';
import { parsePageRequest } from '../http/pageRequest.js';
import { sendProblem } from '../http/problem.js';
import { pathId } from '../http/pathId.js';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** GET /tasks/{id}/execution-logs: a page of execution logs in sequence order, paged like the audits. */
export function executionLogsHandler(ctx: MonitoringContext): RequestHandler {
  return async (req, res) => {
    const id = pathId(req);
    const page = await ctx.store.executionLogs(id, parsePageRequest(req));
    if (!page) return sendProblem(res, 404, `Task ${id} was not found.`);
    sendJson(res, 200, page);
  };
}
