import type { RequestHandler } from 'express';
import { sendProblem } from '../http/problem.js';
import { pathId } from '../http/pathId.js';
import { sendJson } from '../http/sendJson.js';
import type { MonitoringContext } from '../MonitoringContext.js';
import { resumeOutlook } from '../schedules/resumeOutlook.js';

/** GET /tasks/{id}: the task detail, with the first page of its audits and execution logs. */
export function getTaskHandler(ctx: MonitoringContext): RequestHandler {
  return async (req, res) => {
    const id = pathId(req);
    const detail = await ctx.store.getTask(id);
    if (!detail) return sendProblem(res, 404, `Task ${id} was not found.`);
    if (detail.halt && detail.scheduleDefinition) {
      const outlook = resumeOutlook(detail.scheduleDefinition, detail.halt.cursorUtc, ctx.options.now());
      if (outlook) detail.resumeOutlook = outlook;
    }
    sendJson(res, 200, detail);
  };
}
