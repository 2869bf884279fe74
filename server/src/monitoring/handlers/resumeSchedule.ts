import type { RequestHandler } from 'express';
import { pathId } from '../http/pathId.js';
import { operateScheduleByKey } from '../management/scheduleByKey.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** POST /management/tasks/{id}/resume (id of the schedule row): release a halted catch-up. */
export function resumeScheduleHandler(ctx: MonitoringContext): RequestHandler {
  return (req, res) => operateScheduleByKey(ctx, res, pathId(req), 'resume');
}
