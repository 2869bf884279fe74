import type { RequestHandler } from 'express';
import { parsePageRequest } from '../http/pageRequest.js';
import { sendProblem } from '../http/problem.js';
import { pathId } from '../http/pathId.js';
import { NON_TERMINAL_ONLY_PARAM } from '../../contracts/index.js';
import { QueryParams } from '../http/queryParams.js';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** GET /tasks/{id}/occurrences: newest slot first; empty for a task that is not a durable schedule. */
export function occurrencesHandler(ctx: MonitoringContext): RequestHandler {
  return async (req, res) => {
    const id = pathId(req);
    const nonTerminalOnly = new QueryParams(req).bool(NON_TERMINAL_ONLY_PARAM.name) ?? false;
    const page = await ctx.store.occurrences(id, nonTerminalOnly, parsePageRequest(req));
    if (!page) return sendProblem(res, 404, `Task ${id} was not found.`);
    sendJson(res, 200, page);
  };
}
