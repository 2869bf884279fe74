import type { OperationResult } from '../../contracts/index.js';
import type { Response } from 'express';
import type { ManagementResponse, ManagementStatus } from '../../contracts/index.js';

import { sendJson } from '../http/sendJson.js';

/** Management status → HTTP code (Succeeded 200, NotFound 404, Conflict 409, NotSupported 501, Unavailable 503). */
export const MANAGEMENT_HTTP_STATUS: Record<ManagementStatus, number> = {
  Succeeded: 200,
  NotFound: 404,
  Conflict: 409,
  NotSupported: 501,
  Unavailable: 503,
};

export function sendManagement(res: Response, taskId: string, r: OperationResult): void {
  const body: ManagementResponse = {
    status: r.status,
    message: r.message,
    taskId: r.taskId ?? taskId,
    nextRunUtc: r.nextRunUtc,
    releasedHalt: r.releasedHalt,
  };
  const code = MANAGEMENT_HTTP_STATUS[r.status] ?? 503;
  sendJson(res, code, body);
}

/** Runs an engine operation; an engine that throws could not answer: Unavailable, nothing claimed. */
export async function runManagementAction(
  res: Response,
  taskId: string,
  action: () => Promise<OperationResult>,
): Promise<void> {
  let result: OperationResult;
  try {
    result = await action();
  } catch (err) {
    result = { status: 'Unavailable', message: `The engine could not answer: ${(err as Error)?.message ?? String(err)}` };
  }
  sendManagement(res, taskId, result);
}

export const notSupported = (taskId: string): OperationResult => ({
  status: 'NotSupported',
  message: 'Management needs the task engine: this is a standalone registration.',
  taskId,
});
