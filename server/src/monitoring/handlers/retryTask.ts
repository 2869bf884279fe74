import type { RequestHandler } from 'express';
import { pathId } from '../http/pathId.js';
import { managementActor } from '../management/managementActor.js';
import { notSupported, runManagementAction, sendManagement } from '../management/runManagementAction.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** POST /management/tasks/{id}/retry: a Failed, Cancelled or ServiceStopped one-shot task back to Queued. */
export function retryTaskHandler(ctx: MonitoringContext): RequestHandler {
  return async (req, res) => {
    const id = pathId(req);
    const tasks = ctx.engine?.tasks;
    if (!tasks) return sendManagement(res, id, notSupported(id));
    const actor = managementActor(req, res);
    await runManagementAction(res, id, () => tasks.retry(id, actor));
  };
}
