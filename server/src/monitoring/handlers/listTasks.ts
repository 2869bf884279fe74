import type { RequestHandler } from 'express';
import { parseTaskListQuery } from '../http/taskListQuery.js';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** GET /tasks: the filtered, sorted, paged task list. */
export function listTasksHandler(ctx: MonitoringContext): RequestHandler {
  return async (req, res) => sendJson(res, 200, await ctx.store.listTasks(parseTaskListQuery(req)));
}
