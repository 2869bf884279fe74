import type { ConsoleErrorCode } from '../../../shared/consoleError.js';
import type { DesktopBridge, IpcArgs, IpcChannelName, IpcValue } from '../../../shared/ipcContract.js';
import { ApiError } from '../ApiError.js';
import { toPlainData } from './plainData.js';

/** The bridge the preload put on `window.svcMonitor`, or undefined outside the desktop app. */
export function findBridge(): DesktopBridge | undefined {
  return (window as unknown as { svcMonitor?: DesktopBridge }).svcMonitor;
}

/** The HTTP status an error without one stands for (0: the server could not be reached). */
const STATUS_BY_CODE: Record<ConsoleErrorCode, number> = {
  'invalid-arguments': 400,
  'not-found': 404,
  'login-required': 401,
  forbidden: 403,
  conflict: 409,
  network: 0,
  http: 500,
};

/** Calls a bridge channel and unwraps its envelope; failures reject with an ApiError. */
export async function invoke<C extends IpcChannelName>(bridge: DesktopBridge, channel: C, ...args: IpcArgs<C>): Promise<IpcValue<C>> {
  const result = await bridge.invoke(channel, ...toPlainData(args));
  if (result.ok) return result.value;
  const e = result.error;
  throw new ApiError(e.status ?? STATUS_BY_CODE[e.code] ?? 500, e.message, {
    ...(e.retryAfterSeconds !== undefined ? { retryAfterSeconds: e.retryAfterSeconds } : {}),
    ...(e.problem !== undefined ? { problem: e.problem } : {}),
  });
}
