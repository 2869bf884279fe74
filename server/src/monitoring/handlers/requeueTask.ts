import type { RequestHandler } from 'express';
import { pathId } from '../http/pathId.js';
import { notSupported, runManagementAction, sendManagement } from '../management/runManagementAction.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** POST /management/tasks/{id}/requeue (id of the occurrence row): a terminal occurrence back in the queue. */
export function requeueTaskHandler(ctx: MonitoringContext): RequestHandler {
  return async (req, res) => {
    const id = pathId(req);
    const engine = ctx.engine;
    if (!engine) return sendManagement(res, id, notSupported(id));
    await runManagementAction(res, id, () => engine.schedules.requeue(id));
  };
}
