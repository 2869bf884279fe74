import type { RequestHandler } from 'express';
import { pathId } from '../http/pathId.js';
import { operateScheduleByKey } from '../management/scheduleByKey.js';
import type { MonitoringContext } from '../MonitoringContext.js';

/** POST /management/tasks/{id}/cancel (id of the schedule row): cancel a schedule and its pending occurrences. */
export function cancelScheduleHandler(ctx: MonitoringContext): RequestHandler {
  return (req, res) => operateScheduleByKey(ctx, res, pathId(req), 'cancel');
}
