import type { RequestHandler } from 'express';
import { parseTaskListQuery } from '../http/taskListQuery.js';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** GET /tasks (§4.3). */
export function listTasksHandler(ctx: MonitoringContext): RequestHandler {
  return async (req, res) => sendJson(res, 200, await ctx.store.listTasks(parseTaskListQuery(req)));
}
