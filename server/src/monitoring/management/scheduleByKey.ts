import type { OperationResult } from '../../contracts/index.js';
import type { Response } from 'express';

import type { MonitoringContext } from '../MonitoringContext.js';
import { notSupported, runManagementAction, sendManagement } from './runManagementAction.js';

/**
 * Management resume and cancel: resolve the schedule row's task key, then address the schedule
 * manager with it. Unknown id → NotFound; not a durable schedule, or no key → Conflict.
 */
export async function operateScheduleByKey(
  ctx: MonitoringContext,
  res: Response,
  id: string,
  operation: 'resume' | 'cancel',
): Promise<void> {
  const engine = ctx.engine;
  if (!engine) return sendManagement(res, id, notSupported(id));
  const target = await ctx.store.managementTarget(id);
  const refuse = (status: OperationResult['status'], message: string) => sendManagement(res, id, { status, message, taskId: id });
  if (!target) return refuse('NotFound', `Task ${id} was not found.`);
  if (!target.isDurableSchedule) return refuse('Conflict', `Task ${id} is not a durable schedule.`);
  if (target.taskKey === undefined) {
    return refuse('Conflict', `Schedule ${id} was dispatched without a task key and cannot be operated on.`);
  }
  const key = target.taskKey;
  await runManagementAction(res, id, () => (operation === 'resume' ? engine.schedules.resume(key) : engine.schedules.cancel(key)));
}
