import type { RequestHandler } from 'express';
import { parseTaskListQuery } from '../http/taskListQuery.js';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** GET /queues/{name}/tasks: the task list (same query and answer as GET /tasks) restricted to one queue. */
export function listQueueTasksHandler(ctx: MonitoringContext): RequestHandler {
  return async (req, res) => {
    const name = (req.params as Record<string, string>).name ?? '';
    sendJson(res, 200, await ctx.store.listTasks({ ...parseTaskListQuery(req), queueName: name }));
  };
}
